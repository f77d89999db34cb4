// A bounded, thread-safe cache of minted leaves, keyed by host. A leaf past
// half its validity is minted again.
#pragma once

#include "ca/certificate_authority.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace osf::ca {

class LeafCache {
public:
    // `make` builds the per-host object to cache (for the proxy: an SSL_CTX
    // holding the leaf), called outside the lock on a miss.
    using Value = std::shared_ptr<void>;
    // `capacity` is at least 1. The CA must outlive the cache.
    LeafCache(const CertificateAuthority& ca, std::size_t capacity,
              std::function<Value(const Leaf&)> make);
    // The same, with the clock (seconds since the epoch) given: for tests.
    LeafCache(const CertificateAuthority& ca, std::size_t capacity,
              std::function<Value(const Leaf&)> make, std::function<std::int64_t()> now);

    Value get(std::string_view host);

    std::uint64_t hits() const;
    std::uint64_t misses() const;
    std::size_t size() const;

private:
    struct Impl;
    std::shared_ptr<Impl> impl_;
};

} // namespace osf::ca
