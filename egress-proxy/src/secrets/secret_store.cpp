#include "secrets/secret_store.hpp"

#include "secrets/http_get.hpp"
#include "secrets/placeholder_substitution.hpp"
#include "secrets/secret_loader.hpp"

#include <algorithm>

namespace osf::secrets {

namespace http = boost::beast::http;

SecretStore::SecretStore(std::vector<Secret> secrets) : secrets_(std::move(secrets)) {}

SecretStore::Loaded SecretStore::load(const osf::Spec& spec, const SourceEnvironment& env) {
    return load_secrets(spec, env, http_get);
}

std::string SecretStore::substitute_value(std::string_view value,
                                          std::vector<std::string>& used) const {
    return substitute_header_value(value, secrets_, used);
}

std::vector<std::string> SecretStore::substitute(http::fields& headers) const {
    std::vector<std::string> used;
    if (secrets_.empty()) return used;

    // beast::http::fields cannot change a value in place: when anything
    // changes, the fields are put back in their original order.
    std::vector<std::pair<std::string, std::string>> rebuilt;
    bool changed = false;
    for (const auto& field : headers) {
        const auto before = used.size();
        std::string value = substitute_header_value(field.value(), secrets_, used);
        changed = changed || used.size() != before;
        rebuilt.emplace_back(std::string(field.name_string()), std::move(value));
    }
    if (changed) {
        headers.clear(); // keeps the request line
        for (const auto& [name, value] : rebuilt)
            headers.insert(name, value);
    }
    std::sort(used.begin(), used.end());
    used.erase(std::unique(used.begin(), used.end()), used.end());
    return used;
}

std::string SecretStore::redact(std::string_view text) const {
    // Longest value first, so that a value containing another is redacted whole.
    std::vector<std::string_view> values;
    for (const auto& secret : secrets_)
        if (!secret.value.empty()) values.emplace_back(secret.value);
    std::sort(values.begin(), values.end(),
              [](std::string_view a, std::string_view b) { return a.size() > b.size(); });

    std::string out;
    std::size_t i = 0;
    while (i < text.size()) {
        const auto match = std::find_if(values.begin(), values.end(), [&](std::string_view value) {
            return text.substr(i).starts_with(value);
        });
        if (match != values.end()) {
            out += "[redacted]";
            i += match->size();
        } else {
            out += text[i++];
        }
    }
    return out;
}

} // namespace osf::secrets
