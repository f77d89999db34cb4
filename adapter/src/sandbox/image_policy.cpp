#include "sandbox/image_policy.hpp"

#include <fnmatch.h>

namespace osf::sandbox {

using nlohmann::json;

std::vector<std::string> split_image_patterns(const std::string& text) {
    std::vector<std::string> patterns;
    std::size_t start = 0;
    while (start <= text.size()) {
        const auto comma = text.find(',', start);
        const auto end = comma == std::string::npos ? text.size() : comma;
        std::string entry = text.substr(start, end - start);
        const auto first = entry.find_first_not_of(" \t");
        const auto last = entry.find_last_not_of(" \t");
        if (first != std::string::npos) patterns.push_back(entry.substr(first, last - first + 1));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return patterns;
}

bool image_allowed(const std::string& image, const std::vector<std::string>& patterns) {
    if (patterns.empty()) return true;
    for (const auto& pattern : patterns)
        if (::fnmatch(pattern.c_str(), image.c_str(), 0) == 0) return true;
    return false;
}

std::optional<std::string> refused_image(const json& pod_template,
                                         const std::vector<std::string>& patterns) {
    if (patterns.empty() || !pod_template.is_object()) return std::nullopt;
    const json spec = pod_template.value("spec", json::object());
    for (const char* list : {"initContainers", "containers"}) {
        if (!spec.contains(list) || !spec[list].is_array()) continue;
        for (const auto& container : spec[list]) {
            const std::string image = container.is_object() ? container.value("image", "") : "";
            if (!image_allowed(image, patterns)) return image;
        }
    }
    return std::nullopt;
}

} // namespace osf::sandbox
