#include "osf/label_syntax.hpp"

#include <algorithm>
#include <cctype>
#include <string_view>

namespace osf {

namespace {

// 1-63 characters, alphanumeric at both ends, '-', '_', '.' between.
bool label_name(std::string_view text) {
    auto alnum = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
    if (text.empty() || text.size() > 63 || !alnum(text.front()) || !alnum(text.back()))
        return false;
    return std::all_of(text.begin(), text.end(),
                       [&](char c) { return alnum(c) || c == '-' || c == '_' || c == '.'; });
}

// Lower-case DNS labels of letters, digits and '-', dot-separated, at most 253.
bool dns_subdomain(std::string_view text) {
    if (text.empty() || text.size() > 253) return false;
    std::size_t start = 0;
    while (start <= text.size()) {
        const auto end = std::min(text.find('.', start), text.size());
        const std::string_view part = text.substr(start, end - start);
        if (part.empty() || part.size() > 63 || part.front() == '-' || part.back() == '-')
            return false;
        for (char c : part)
            if (!(std::islower(static_cast<unsigned char>(c)) ||
                  std::isdigit(static_cast<unsigned char>(c)) || c == '-'))
                return false;
        start = end + 1;
    }
    return true;
}

} // namespace

std::optional<std::string> label_key_problem(const std::string& key) {
    const auto slash = key.find('/');
    const std::string_view prefix =
        slash == std::string::npos ? std::string_view() : std::string_view(key).substr(0, slash);
    const std::string_view name = slash == std::string::npos
                                      ? std::string_view(key)
                                      : std::string_view(key).substr(slash + 1);
    if ((slash != std::string::npos && !dns_subdomain(prefix)) || !label_name(name))
        return "'" + key +
               "' is not a label key (an optional DNS-subdomain prefix and '/', then 1-63 "
               "letters, digits, '-', '_' or '.', alphanumeric at both ends)";
    return std::nullopt;
}

std::optional<std::string> label_value_problem(const std::string& key, const std::string& value) {
    if (!value.empty() && !label_name(value))
        return "the value of " + key +
               " is not a label value (empty, or 1-63 letters, digits, '-', '_' or '.', "
               "alphanumeric at both ends)";
    return std::nullopt;
}

std::optional<std::string> user_label_problem(const std::string& key, const std::string& value) {
    if (auto problem = label_key_problem(key)) return problem;
    if (auto problem = label_value_problem(key, value)) return problem;
    const auto slash = key.find('/');
    const std::string prefix = slash == std::string::npos ? "" : key.substr(0, slash);
    // The adapters find and tell apart a sandbox's objects by these keys: a
    // user's label with one of them would make them match the wrong things.
    if (key.rfind("osf.", 0) == 0 || key == "app.kubernetes.io/managed-by" ||
        key == "app.kubernetes.io/component" || prefix == "agents.x-k8s.io" ||
        prefix.ends_with(".agents.x-k8s.io"))
        return key + " is a label the sandbox adapters set themselves";
    return std::nullopt;
}

} // namespace osf
