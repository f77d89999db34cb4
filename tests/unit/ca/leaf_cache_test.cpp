#include "ca/leaf_cache.hpp"
#include "verify_support.hpp"

#include <atomic>
#include <catch2/catch.hpp>
#include <thread>

using osf::ca::CaOptions;
using osf::ca::CertificateAuthority;
using osf::ca::Leaf;
using osf::ca::LeafCache;

namespace {

// What the tests cache: the SAN host the leaf was minted for, read back from
// the certificate itself so a mix-up between hosts would show.
struct Minted {
    std::string host;
    std::int64_t not_after;
};

LeafCache::Value describe(const Leaf& leaf) {
    GENERAL_NAMES* names = static_cast<GENERAL_NAMES*>(
        X509_get_ext_d2i(leaf.certificate.get(), NID_subject_alt_name, nullptr, nullptr));
    GENERAL_NAME* name = sk_GENERAL_NAME_value(names, 0);
    std::string host(reinterpret_cast<const char*>(ASN1_STRING_get0_data(name->d.dNSName)),
                     static_cast<std::size_t>(ASN1_STRING_length(name->d.dNSName)));
    GENERAL_NAMES_free(names);
    return std::make_shared<Minted>(Minted{host, leaf.not_after});
}

const Minted& minted(const LeafCache::Value& value) {
    return *static_cast<Minted*>(value.get());
}

std::unique_ptr<CertificateAuthority> make_ca() {
    return CertificateAuthority::create(CaOptions{});
}

} // namespace

TEST_CASE("the cache mints once per host and counts hits and misses", "[cache]") {
    auto ca = make_ca();
    std::atomic<int> made{0};
    LeafCache cache(*ca, 8, [&](const Leaf& leaf) {
        ++made;
        return describe(leaf);
    });
    auto a1 = cache.get("a.example");
    auto a2 = cache.get("a.example");
    auto b = cache.get("b.example");
    CHECK(minted(a1).host == "a.example");
    CHECK(minted(b).host == "b.example");
    CHECK(a1.get() == a2.get());
    CHECK(made == 2);
    CHECK(cache.hits() == 1);
    CHECK(cache.misses() == 2);
    CHECK(cache.size() == 2);
}

TEST_CASE("the cache evicts the least recently used host", "[cache]") {
    auto ca = make_ca();
    LeafCache cache(*ca, 2, describe);
    auto a = cache.get("a.example");
    cache.get("b.example");
    CHECK(cache.get("a.example").get() == a.get()); // a is now the most recent
    cache.get("c.example");                         // evicts b
    CHECK(cache.size() == 2);
    CHECK(cache.misses() == 3);
    CHECK(cache.get("a.example").get() == a.get());
    CHECK(cache.hits() == 2);
    cache.get("b.example"); // minted again; evicts c
    CHECK(cache.misses() == 4);
    CHECK(cache.size() == 2);
    cache.get("c.example");
    CHECK(cache.misses() == 5);
}

TEST_CASE("a capacity of zero still caches one host", "[cache]") {
    auto ca = make_ca();
    LeafCache cache(*ca, 0, describe);
    auto a = cache.get("a.example");
    CHECK(cache.get("a.example").get() == a.get());
    CHECK(cache.size() == 1);
}

TEST_CASE("a leaf past half its validity is minted again", "[cache]") {
    auto ca = make_ca();
    std::atomic<std::int64_t> now{static_cast<std::int64_t>(std::time(nullptr))};
    LeafCache cache(*ca, 4, describe, [&] { return now.load(); });
    auto first = cache.get("a.example");
    now += 14 * 24 * 3600; // under half of 30 days (the leaf was backdated an hour)
    CHECK(cache.get("a.example").get() == first.get());
    now += 2 * 24 * 3600; // past half
    auto second = cache.get("a.example");
    CHECK(second.get() != first.get());
    CHECK(cache.misses() == 2);
    CHECK(cache.hits() == 1);
    CHECK(cache.size() == 1);
    CHECK(cache.get("a.example").get() == second.get());
}

TEST_CASE("make runs outside the cache's lock", "[cache]") {
    auto ca = make_ca();
    LeafCache* self = nullptr;
    std::size_t size_seen = 99;
    LeafCache cache(*ca, 4, [&](const Leaf& leaf) {
        size_seen = self->size(); // would deadlock if the lock were held
        return describe(leaf);
    });
    self = &cache;
    cache.get("a.example");
    CHECK(size_seen == 0);
}

TEST_CASE("concurrent gets return the right leaf for every host", "[cache]") {
    auto ca = make_ca();
    constexpr std::size_t capacity = 6;
    LeafCache cache(*ca, capacity, describe);
    constexpr int threads = 4;
    constexpr int per_thread = 150;
    constexpr int hosts = 10;
    std::atomic<int> wrong{0};
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t) {
        workers.emplace_back([&, t] {
            for (int i = 0; i < per_thread; ++i) {
                std::string host = "h" + std::to_string((i * 7 + t) % hosts) + ".example";
                auto value = cache.get(host);
                if (!value || minted(value).host != host) ++wrong;
                if (cache.size() > capacity) ++wrong;
            }
        });
    }
    for (auto& worker : workers)
        worker.join();
    CHECK(wrong == 0);
    CHECK(cache.hits() + cache.misses() == threads * per_thread);
    CHECK(cache.misses() >= hosts);
    CHECK(cache.size() <= capacity);
}
