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

// A form in which the proxy wrote a real value into a request (the value
// itself, the Basic credentials it encoded...) and what the sandbox had sent
// in its place.
struct EchoForm {
    std::string real;
    std::string shown;
    std::string name; // the secret's name
};

// Replaces every occurrence of a form's `real` text with its `shown` text,
// longest form first; appends the names hidden to `found`.
std::string mask_forms(std::string_view text, std::span<const EchoForm> forms,
                       std::vector<std::string>& found);

// True when a form's real text appears in `text`, ASCII case ignored (for
// field names, which cannot be rewritten).
bool contains_form(std::string_view text, std::span<const EchoForm> forms);

// "%XX" for every byte outside RFC 3986's unreserved set (upper-case hex).
std::string percent_encode(std::string_view text);

} // namespace osf::secrets
