// A bounded, thread-safe cache of minted leaves, keyed by host. A leaf past
// half its validity is minted again.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "ca/certificate_authority.hpp"

namespace osf::ca {

class LeafCache {
public:
    // `make` builds the per-host object to cache (for the proxy: an SSL_CTX
    // holding the leaf), called outside the lock on a miss.
    using Value = std::shared_ptr<void>;
    LeafCache(const CertificateAuthority& ca, std::size_t capacity,
              std::function<Value(const Leaf&)> make);

    Value get(std::string_view host);

    std::uint64_t hits() const;
    std::uint64_t misses() const;
    std::size_t size() const;

private:
    struct Impl;
    std::shared_ptr<Impl> impl_;
};

} // namespace osf::ca
