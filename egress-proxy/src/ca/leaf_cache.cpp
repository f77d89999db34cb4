// An LRU cache of per-host values built from minted leaves. Minting (an EC
// signature) and `make` run outside the lock, so one slow miss does not stall
// every other handshake; two concurrent misses for one host both mint, and the
// later value replaces the earlier.
#include "ca/leaf_cache.hpp"

#include <ctime>
#include <list>
#include <mutex>
#include <unordered_map>

namespace osf::ca {

struct LeafCache::Impl {
    struct Entry {
        std::string host;
        Value value;
        std::int64_t renew_at; // half-way through the leaf's validity
    };

    Impl(const CertificateAuthority& ca_, std::size_t capacity_,
         std::function<Value(const Leaf&)> make_, std::function<std::int64_t()> now_)
        : ca(ca_), capacity(capacity_ < 1 ? 1 : capacity_), make(std::move(make_)),
          now(std::move(now_)) {}

    const CertificateAuthority& ca;
    std::size_t capacity;
    std::function<Value(const Leaf&)> make;
    std::function<std::int64_t()> now;

    mutable std::mutex mutex;
    std::list<Entry> entries; // most recently used first
    std::unordered_map<std::string, std::list<Entry>::iterator> index;
    std::uint64_t hits = 0;
    std::uint64_t misses = 0;

    Value lookup(const std::string& host) {
        std::lock_guard lock(mutex);
        auto it = index.find(host);
        if (it != index.end() && now() < it->second->renew_at) {
            entries.splice(entries.begin(), entries, it->second);
            ++hits;
            return it->second->value;
        }
        ++misses;
        return nullptr;
    }

    void store(const std::string& host, Value value, std::int64_t renew_at) {
        std::lock_guard lock(mutex);
        auto it = index.find(host);
        if (it != index.end()) {
            entries.erase(it->second);
            index.erase(it);
        }
        entries.push_front(Entry{host, std::move(value), renew_at});
        index.emplace(host, entries.begin());
        while (entries.size() > capacity) {
            index.erase(entries.back().host);
            entries.pop_back();
        }
    }
};

LeafCache::LeafCache(const CertificateAuthority& ca, std::size_t capacity,
                     std::function<Value(const Leaf&)> make)
    : LeafCache(ca, capacity, std::move(make),
                [] { return static_cast<std::int64_t>(std::time(nullptr)); }) {}

LeafCache::LeafCache(const CertificateAuthority& ca, std::size_t capacity,
                     std::function<Value(const Leaf&)> make, std::function<std::int64_t()> now)
    : impl_(std::make_shared<Impl>(ca, capacity, std::move(make), std::move(now))) {}

LeafCache::Value LeafCache::get(std::string_view host_view) {
    const std::string host(host_view);
    if (Value cached = impl_->lookup(host)) return cached;
    // The half-way point on the cache's clock: not_before is the minting time
    // minus the backdate, and minting happens right after `minted_at`.
    const std::int64_t minted_at = impl_->now();
    Leaf leaf = impl_->ca.mint_leaf(host);
    Value value = impl_->make(leaf);
    impl_->store(host, value,
                 minted_at - backdate_seconds + (leaf.not_after - leaf.not_before) / 2);
    return value;
}

std::uint64_t LeafCache::hits() const {
    std::lock_guard lock(impl_->mutex);
    return impl_->hits;
}

std::uint64_t LeafCache::misses() const {
    std::lock_guard lock(impl_->mutex);
    return impl_->misses;
}

std::size_t LeafCache::size() const {
    std::lock_guard lock(impl_->mutex);
    return impl_->entries.size();
}

} // namespace osf::ca
