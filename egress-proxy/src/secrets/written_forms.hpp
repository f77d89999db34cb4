// Every form of a real value the proxy has written for this sandbox (the
// values, their percent-encoding, each Basic token it built), kept for the
// sandbox's life: an origin may echo a credential it got in one request in
// the answer to any later one, on any connection, so every answer head and
// trailer section is masked against all of them, not only the forms of its
// own request. Bounded: past `max_forms` or `max_bytes` a request that would
// write a new form must not go (the caller refuses it before sending).
#pragma once

#include "secrets/value_masking.hpp"

#include <boost/beast/http/message.hpp>
#include <cstddef>
#include <shared_mutex>
#include <span>
#include <vector>

namespace osf::secrets {

class SecretStore;

class WrittenForms {
public:
    struct Limits {
        std::size_t max_forms = 4096;
        std::size_t max_bytes = 4 * 1024 * 1024; // real and shown texts, names
    };

    WrittenForms(const SecretStore& store, Limits limits);
    explicit WrittenForms(const SecretStore& store) : WrittenForms(store, Limits{}) {}
    // With forms known from the start besides the store's values (the real
    // AWS key ids and session tokens the proxy signs with).
    WrittenForms(const SecretStore& store, std::span<const EchoForm> more);

    // Adds the forms not known yet (by their real text). False, with nothing
    // added, when they would not fit: the request that wrote them must not go.
    bool remember(std::span<const EchoForm> forms);

    // SecretStore::mask_answer_head against every form known now.
    bool mask_answer_head(boost::beast::http::response_header<>& head) const;

    std::size_t size() const;
    std::size_t bytes() const;

private:
    Limits limits_;
    // No secrets: no form can ever be written, and answers need no look (nor the lock).
    bool none_ = false;
    mutable std::shared_mutex mutex_; // readers: every answer; writers: a new form
    std::vector<EchoForm> forms_;
    std::size_t bytes_ = 0;
};

// What a form costs in WrittenForms's bound.
std::size_t form_bytes(const EchoForm& form);

} // namespace osf::secrets
