// Real secret values, resolved once at start, and their substitution into
// request headers. Substitution is pure; resolution reads the sources.
#pragma once

#include "osf/spec.hpp"
#include "secrets/value_masking.hpp"

#include <boost/beast/http/fields.hpp>
#include <boost/beast/http/message.hpp>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace osf::secrets {

// Where resolution reads from; tests pass their own.
struct SourceEnvironment {
    std::function<std::optional<std::string>(const std::string&)>
        getenv;                               // OSF_SECRET_<NAME>, OSF_OPENBAO_*
    std::string secrets_dir = "/run/secrets"; // OSF_SECRETS_DIR
    std::string extra_ca_bundle;              // also trusted for OpenBao
    static SourceEnvironment from_process();
};

struct Secret {
    std::string name;
    std::string placeholder; // osf-secret-placeholder-<NAME>
    std::string value;
    osf::SecretBinding binding; // hosts lower case; unbound: every egress host
    std::string file;           // ref:file/: the file's path (re-read when it changes)
};

class SecretStore {
public:
    SecretStore() = default;
    explicit SecretStore(std::vector<Secret> secrets);
    SecretStore(const SecretStore&) = default;
    SecretStore(SecretStore&&) = default;
    SecretStore& operator=(const SecretStore&) = default;
    SecretStore& operator=(SecretStore&&) = default;
    // The real values are wiped from memory, not only released.
    ~SecretStore();

    // Resolves every secret of the spec. On failure `error` holds one line
    // naming the secret and its source, never a value.
    struct Loaded;
    static Loaded load(const osf::Spec& spec, const SourceEnvironment& env);

    // Replaces every declared placeholder in every header value, including
    // inside `Authorization: Basic` credentials (decoded, replaced,
    // re-encoded). Returns the names substituted, sorted, without repeats.
    // `produced`, when given, receives the forms written that are not a
    // plain value (the Basic credentials encoded here), for mask_answer_head.
    std::vector<std::string> substitute(boost::beast::http::fields& headers,
                                        std::vector<EchoForm>* produced = nullptr) const;

    // substitute() within bounds: when the substituted head would be over
    // `max_head_bytes` (names, values and their framing), or one value over
    // what a field can hold (kMaxFieldValue), `headers` are left as they were
    // and `too_large` says which; the request must then be refused.
    struct Substituted {
        std::vector<std::string> names;
        std::string too_large; // empty: substituted (or nothing to do)
    };
    Substituted substitute_within(boost::beast::http::fields& headers, std::size_t max_head_bytes,
                                  std::vector<EchoForm>* produced = nullptr) const;

    // True when a header value holds a declared placeholder: substitute()
    // would write a real value.
    bool has_placeholder(const boost::beast::http::fields& headers) const;

    // Same on one value (for tests and for the WebSocket upgrade request).
    std::string substitute_value(std::string_view value, std::vector<std::string>& used) const;

    // Replaces any real value found in `text` with "[redacted]" (diagnostics).
    std::string redact(std::string_view text) const;

    // For responses: puts the placeholder back wherever a real value appears
    // in a header value, so that a server echoing a credential (in a header,
    // a cookie, a redirect URL) never hands it to the sandbox. Framing headers
    // (Content-Length, Transfer-Encoding) are left alone. Returns the names
    // found, sorted, without repeats. Bodies are not inspected.
    std::vector<std::string> restore_placeholders(boost::beast::http::fields& headers) const;

    // For an answer head: every form of a real value the proxy wrote (the
    // value, its percent-encoding, and the `produced` forms of this
    // exchange) is put back to what the sandbox sent, in the status line's
    // reason phrase and in field values (framing fields aside). False when
    // a field name holds one (a name cannot be rewritten) or a masked value
    // would be over what a field can hold (a placeholder can be longer than
    // its value): the answer must be refused.
    bool mask_answer_head(boost::beast::http::response_header<>& head,
                          const std::vector<EchoForm>& produced) const;
    // The same against `forms`, all of them (WrittenForms holds every form
    // written for the sandbox's life: the proxy masks with that).
    static bool mask_answer_head_with(boost::beast::http::response_header<>& head,
                                      std::span<const EchoForm> forms);

    // Each value and its percent-encoding (the forms every request may write).
    const std::vector<EchoForm>& value_forms() const { return value_forms_; }

    bool empty() const { return secrets_.empty(); }
    // True when some secret is bound to hosts (placement then looks at every request).
    bool any_bound() const;

    // Why a head of these fields cannot be sent (a field over kMaxFieldValue,
    // or over `max_head_bytes` in all), or empty.
    static std::string
    head_too_large(const std::vector<std::pair<std::string, std::string>>& fields,
                   std::size_t max_head_bytes);
    const std::vector<Secret>& secrets() const { return secrets_; }

    // Beast keeps a field's name and value lengths in 16 bits (with their
    // framing): a longer value makes fields::insert throw.
    static constexpr std::size_t kMaxFieldValue = 65533;

private:
    std::vector<Secret> secrets_;
    std::vector<EchoForm> value_forms_; // each value and its percent-encoding
};

struct SecretStore::Loaded {
    SecretStore store;
    std::string error; // empty on success
};

} // namespace osf::secrets
