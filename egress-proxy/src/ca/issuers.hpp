// The proxy's certificate authorities: the one made at start, constrained to
// the spec's names, and one more for each policy change that allows names
// outside every earlier one's constraints. A CA's constraints never widen (a
// certificate cannot change): a new name gets a new CA, constrained to the
// names that needed it, and clients trust the bundle of all of them (ca.crt).
// A leaf for a host comes from the first CA that may sign for it, so clients
// that loaded the bundle before a change keep working for every host they
// knew. Thread-safe: leaves are minted on the workers, CAs added on the admin
// listener's thread.
#pragma once

#include "ca/certificate_authority.hpp"
#include "ca/leaf_cache.hpp"

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace osf::ca {

// True when a CA constrained to `permitted` (CaOptions::permitted_names) may
// sign for `host`: no constraints at all, the name itself, or a subdomain of
// one; an IP literal only when listed as itself.
bool may_sign_for(const std::vector<std::string>& permitted, std::string_view host);

class Issuers {
public:
    using MakeContext = std::function<LeafCache::Value(const Leaf&, X509* ca_certificate)>;
    Issuers(std::unique_ptr<CertificateAuthority> first, std::vector<std::string> permitted,
            std::size_t cache_capacity, MakeContext make);

    // The cached per-host object of the first CA that may sign for `host`
    // (null when none may: the host's TLS handshake then fails).
    LeafCache::Value get(std::string_view host) const;

    // Of `names`, those no CA may sign for yet.
    std::vector<std::string> uncovered(const std::vector<std::string>& names) const;
    // Makes a CA constrained to `names` (uncovered ones) and adds it after the others.
    void add(const std::vector<std::string>& names);

    // Every CA's certificate, PEM, in order: the bundle clients trust.
    std::string bundle_pem() const;
    std::size_t count() const;
    const CertificateAuthority& first() const;

    std::uint64_t hits() const;
    std::uint64_t misses() const;
    std::size_t cached() const;

private:
    struct Issuer {
        std::unique_ptr<CertificateAuthority> authority;
        std::vector<std::string> permitted;
        std::unique_ptr<LeafCache> leaves;
    };
    using List = std::vector<std::shared_ptr<const Issuer>>;
    std::shared_ptr<const Issuer> make(std::unique_ptr<CertificateAuthority> authority,
                                       std::vector<std::string> permitted) const;

    std::size_t capacity_;
    MakeContext make_;
    std::mutex add_mutex_; // one add at a time; readers never wait
    std::atomic<std::shared_ptr<const List>> list_;
};

} // namespace osf::ca
