// OSF_SANDBOX_ALLOWED_IMAGES: which images a sandbox may run, as shell-style
// patterns ("ghcr.io/acme/*", "node:24-*"), checked before anything starts.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace osf::sandbox {

// "a, b,,c" -> {"a", "b", "c"}: comma-separated, blanks around entries ignored.
std::vector<std::string> split_image_patterns(const std::string& text);

// True when `patterns` is empty (no restriction) or one of them matches the
// whole image reference; '*' matches any run of characters, '/' included.
bool image_allowed(const std::string& image, const std::vector<std::string>& patterns);

// The first image of `pod_template`'s init containers and containers that no
// pattern allows (a container without an image counts as ""), if any.
std::optional<std::string> refused_image(const nlohmann::json& pod_template,
                                         const std::vector<std::string>& patterns);

} // namespace osf::sandbox
