#include "secrets/secret_store.hpp"

#include "secrets/basic_auth.hpp"
#include "secrets/http_get.hpp"
#include "secrets/placeholder_substitution.hpp"
#include "secrets/secret_loader.hpp"
#include "secrets/value_masking.hpp"

#include <algorithm>
#include <openssl/crypto.h>

namespace osf::secrets {

namespace http = boost::beast::http;

namespace {

// beast::http::fields cannot change a value in place: when anything changes,
// the fields are put back in their original order. clear() keeps the start
// line (method, target, status).
void replace_all(http::fields& headers,
                 const std::vector<std::pair<std::string, std::string>>& fields) {
    headers.clear();
    for (const auto& [name, value] : fields)
        headers.insert(name, value);
}

void wipe(std::string& text) {
    if (!text.empty()) OPENSSL_cleanse(text.data(), text.size());
}

} // namespace

std::string
SecretStore::head_too_large(const std::vector<std::pair<std::string, std::string>>& fields,
                            std::size_t max_head_bytes) {
    std::size_t total = 0;
    for (const auto& [name, value] : fields) {
        if (value.size() > SecretStore::kMaxFieldValue)
            return "a header field over 64 KiB once secrets are substituted";
        total += name.size() + value.size() + 4; // ": " and CRLF
    }
    if (total > max_head_bytes)
        return "a head over " + std::to_string(max_head_bytes) +
               " bytes once secrets are substituted";
    return {};
}

namespace {

std::string too_large(const std::vector<std::pair<std::string, std::string>>& fields,
                      std::size_t max_head_bytes) {
    return SecretStore::head_too_large(fields, max_head_bytes);
}

void sort_unique(std::vector<std::string>& names) {
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
}

} // namespace

SecretStore::SecretStore(std::vector<Secret> secrets) : secrets_(std::move(secrets)) {
    for (const auto& secret : secrets_) {
        if (secret.value.empty()) continue;
        value_forms_.push_back({secret.value, secret.placeholder, secret.name});
        if (auto encoded = percent_encode(secret.value); encoded != secret.value)
            value_forms_.push_back({std::move(encoded), secret.placeholder, secret.name});
    }
}

SecretStore::~SecretStore() {
    for (auto& secret : secrets_)
        wipe(secret.value);
    for (auto& form : value_forms_)
        wipe(form.real);
}

bool SecretStore::any_bound() const {
    return std::any_of(secrets_.begin(), secrets_.end(),
                       [](const Secret& secret) { return secret.binding.bound(); });
}

SecretStore::Loaded SecretStore::load(const osf::Spec& spec, const SourceEnvironment& env) {
    return load_secrets(spec, env, http_get);
}

std::string SecretStore::substitute_value(std::string_view value,
                                          std::vector<std::string>& used) const {
    return substitute_header_value(value, secrets_, used);
}

bool SecretStore::has_placeholder(const http::fields& headers) const {
    if (secrets_.empty()) return false;
    std::vector<std::string> used;
    for (const auto& field : headers) {
        substitute_header_value(field.value(), secrets_, used);
        if (!used.empty()) return true;
    }
    return false;
}

std::vector<std::string> SecretStore::substitute(http::fields& headers,
                                                 std::vector<EchoForm>* produced) const {
    return substitute_within(headers, static_cast<std::size_t>(-1), produced).names;
}

SecretStore::Substituted SecretStore::substitute_within(http::fields& headers,
                                                        std::size_t max_head_bytes,
                                                        std::vector<EchoForm>* produced) const {
    Substituted result;
    auto& used = result.names;
    if (secrets_.empty()) return result;

    std::vector<std::pair<std::string, std::string>> rebuilt;
    bool changed = false;
    for (const auto& field : headers) {
        const auto before = used.size();
        std::string value = substitute_header_value(field.value(), secrets_, used);
        changed = changed || used.size() != before;
        if (produced && used.size() != before) {
            // Basic credentials encoded here: an echo of the token is an echo of the value.
            const auto built = parse_basic(value);
            const auto sent = parse_basic(field.value());
            if (built && sent)
                produced->push_back({value.substr(built->prefix.size()),
                                     std::string(field.value().substr(sent->prefix.size())),
                                     used.back()});
        }
        rebuilt.emplace_back(std::string(field.name_string()), std::move(value));
    }
    if (changed) {
        result.too_large = too_large(rebuilt, max_head_bytes);
        if (!result.too_large.empty()) {
            if (produced) produced->clear();
            used.clear();
            return result;
        }
        replace_all(headers, rebuilt);
    }
    sort_unique(used);
    return result;
}

std::string SecretStore::redact(std::string_view text) const {
    std::vector<std::string> ignored;
    return mask_values(text, secrets_, Mask::Redacted, ignored);
}

std::vector<std::string> SecretStore::restore_placeholders(http::fields& headers) const {
    std::vector<std::string> found;
    if (secrets_.empty()) return found;
    std::vector<std::pair<std::string, std::string>> rebuilt;
    bool changed = false;
    for (const auto& field : headers) {
        const bool framing = field.name() == http::field::content_length ||
                             field.name() == http::field::transfer_encoding;
        const auto before = found.size();
        std::string value = framing
                                ? std::string(field.value())
                                : mask_values(field.value(), secrets_, Mask::Placeholder, found);
        changed = changed || found.size() != before;
        rebuilt.emplace_back(std::string(field.name_string()), std::move(value));
    }
    if (changed) replace_all(headers, rebuilt);
    sort_unique(found);
    return found;
}

bool SecretStore::mask_answer_head(http::response_header<>& head,
                                   const std::vector<EchoForm>& produced) const {
    if (produced.empty()) return mask_answer_head_with(head, value_forms_);
    std::vector<EchoForm> merged = value_forms_;
    merged.insert(merged.end(), produced.begin(), produced.end());
    return mask_answer_head_with(head, merged);
}

bool SecretStore::mask_answer_head_with(http::response_header<>& head,
                                        std::span<const EchoForm> forms) {
    if (forms.empty()) return true;
    auto holds_form = [&](std::string_view text) {
        return std::any_of(forms.begin(), forms.end(), [&](const EchoForm& form) {
            return text.find(form.real) != std::string_view::npos;
        });
    };
    // One look first: most answers echo nothing and are left as they are.
    bool echoed = false;
    for (const auto& field : head) {
        if (contains_form(field.name_string(), forms)) return false; // a name cannot be rewritten
        echoed = echoed || holds_form(field.value());
    }
    std::vector<std::string> found;
    if (holds_form(head.reason())) head.reason(mask_forms(head.reason(), forms, found));
    if (!echoed) return true;
    std::vector<std::pair<std::string, std::string>> rebuilt;
    for (const auto& field : head) {
        const bool framing = field.name() == http::field::content_length ||
                             field.name() == http::field::transfer_encoding;
        rebuilt.emplace_back(std::string(field.name_string()),
                             framing ? std::string(field.value())
                                     : mask_forms(field.value(), forms, found));
    }
    if (!too_large(rebuilt, static_cast<std::size_t>(-1)).empty()) return false;
    replace_all(head, rebuilt);
    return true;
}

} // namespace osf::secrets
