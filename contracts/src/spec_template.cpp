#include "json_path.hpp"
#include "osf/spec_limits.hpp"
#include "spec_sections.hpp"

namespace osf::spec_detail {

namespace {

bool is_printable_ascii(char c) {
    return c > ' ' && c <= '~';
}

} // namespace

std::string dns_subdomain_rule() {
    return "lower-case letters, digits, '-' and '.', at most " +
           std::to_string(spec_limits::max_template_name_length) + " characters";
}

// A DNS-1123 subdomain: lower-case alphanumeric labels with inner '-', joined by '.'.
bool is_dns_subdomain(std::string_view name) {
    if (name.empty() || name.size() > spec_limits::max_template_name_length) return false;
    std::size_t start = 0;
    while (true) {
        const auto dot = name.find('.', start);
        const auto label = name.substr(start, dot == std::string_view::npos ? dot : dot - start);
        if (label.empty() || label.front() == '-' || label.back() == '-') return false;
        for (const char c : label)
            if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
        if (dot == std::string_view::npos) return true;
        start = dot + 1;
    }
}

void check_template(const nlohmann::json& value, const SpecCheck& check, Spec& spec) {
    const std::string path = "$.template";
    if (!value.is_string()) {
        check.fail(path, "must be a string naming an image (\"node:24-alpine\") or a "
                         "SandboxTemplate; got " +
                             describe_type(value));
        return;
    }
    const auto& text = value.get_ref<const std::string&>();
    if (text.empty()) {
        check.fail(path, "is empty: name an image (\"node:24-alpine\") or a SandboxTemplate");
        return;
    }
    if (code_points(text) > spec_limits::max_template_length) {
        check.fail(path, "is longer than 1024 characters");
        return;
    }
    if (text.find_first_of("/:@") != std::string::npos) {
        for (const char c : text) {
            if (!is_printable_ascii(c)) {
                check.fail(path, json_quoted(text) +
                                     " is not an image reference: it holds a space, a control or "
                                     "a non-ASCII character");
                return;
            }
        }
    } else if (!is_dns_subdomain(text)) {
        check.fail(path, json_quoted(text) +
                             " is neither an image (which holds '/', ':' or '@', as "
                             "\"node:24-alpine\") nor a SandboxTemplate name (" +
                             dns_subdomain_rule() + ")");
        return;
    }
    spec.template_name = text;
}

} // namespace osf::spec_detail
