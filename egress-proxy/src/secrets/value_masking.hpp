// Finding real values in text that leaves the proxy (diagnostics, response
// headers) and hiding them. Pure.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace osf::secrets {

struct Secret;

enum class Mask {
    Redacted,    // "[redacted]": for diagnostics
    Placeholder, // the secret's placeholder: what the sandbox already knows
};

// Replaces every occurrence of a real value, longest value first so that a
// value containing another is hidden whole; appends the names hidden to
// `found` (possibly with repeats).
std::string mask_values(std::string_view text, std::span<const Secret> secrets, Mask mask,
                        std::vector<std::string>& found);

} // namespace osf::secrets
