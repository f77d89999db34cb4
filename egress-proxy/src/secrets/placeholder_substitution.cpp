#include "secrets/placeholder_substitution.hpp"

#include "secrets/basic_auth.hpp"
#include "secrets/secret_store.hpp"

namespace osf::secrets {
namespace {

bool is_name_char(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

const Secret* find_declared(std::span<const Secret> secrets, std::string_view name) {
    for (const auto& secret : secrets)
        if (secret.name == name) return &secret;
    return nullptr;
}

} // namespace

std::string replace_placeholders(std::string_view text, std::span<const Secret> secrets,
                                 std::vector<std::string>& used) {
    std::string out;
    std::size_t copied = 0;
    std::size_t search = 0;
    while ((search = text.find(placeholder_prefix, search)) != std::string_view::npos) {
        const std::size_t name_start = search + placeholder_prefix.size();
        std::size_t name_end = name_start;
        while (name_end < text.size() && is_name_char(text[name_end]))
            ++name_end;
        const Secret* secret =
            find_declared(secrets, text.substr(name_start, name_end - name_start));
        if (secret != nullptr) {
            out.append(text.substr(copied, search - copied));
            out.append(secret->value);
            used.push_back(secret->name);
            copied = name_end;
        }
        search = name_end;
    }
    if (copied == 0) return std::string(text);
    out.append(text.substr(copied));
    return out;
}

std::string substitute_header_value(std::string_view value, std::span<const Secret> secrets,
                                    std::vector<std::string>& used) {
    if (auto basic = parse_basic(value)) {
        const auto before = used.size();
        std::string replaced = replace_placeholders(basic->decoded, secrets, used);
        if (used.size() != before) return std::string(basic->prefix) + base64_encode(replaced);
        return std::string(value);
    }
    return replace_placeholders(value, secrets, used);
}

} // namespace osf::secrets
