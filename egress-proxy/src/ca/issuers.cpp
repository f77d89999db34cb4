#include "ca/issuers.hpp"

#include <algorithm>
#include <boost/asio/ip/address.hpp>

namespace osf::ca {

bool may_sign_for(const std::vector<std::string>& permitted, std::string_view host) {
    if (permitted.empty()) return true;
    boost::system::error_code not_an_address;
    boost::asio::ip::make_address(std::string(host), not_an_address);
    const bool address = !not_an_address;
    return std::any_of(permitted.begin(), permitted.end(), [&](const std::string& name) {
        if (name == host) return true;
        return !address && host.size() > name.size() && host.ends_with(name) &&
               host[host.size() - name.size() - 1] == '.';
    });
}

Issuers::Issuers(std::unique_ptr<CertificateAuthority> first, std::vector<std::string> permitted,
                 std::size_t cache_capacity, MakeContext make)
    : capacity_(cache_capacity), make_(std::move(make)) {
    list_.store(
        std::make_shared<const List>(List{this->make(std::move(first), std::move(permitted))}));
}

std::shared_ptr<const Issuers::Issuer>
Issuers::make(std::unique_ptr<CertificateAuthority> authority,
              std::vector<std::string> permitted) const {
    auto issuer = std::make_shared<Issuer>();
    X509* certificate = authority->certificate();
    issuer->leaves = std::make_unique<LeafCache>(
        *authority, capacity_,
        [make = make_, certificate](const Leaf& leaf) { return make(leaf, certificate); });
    issuer->authority = std::move(authority);
    issuer->permitted = std::move(permitted);
    return issuer;
}

LeafCache::Value Issuers::get(std::string_view host) const {
    const auto list = list_.load();
    for (const auto& issuer : *list)
        if (may_sign_for(issuer->permitted, host)) return issuer->leaves->get(host);
    return nullptr;
}

std::vector<std::string> Issuers::uncovered(const std::vector<std::string>& names) const {
    const auto list = list_.load();
    std::vector<std::string> out;
    for (const auto& name : names)
        if (std::none_of(list->begin(), list->end(),
                         [&](const auto& issuer) { return may_sign_for(issuer->permitted, name); }))
            out.push_back(name);
    return out;
}

void Issuers::add(const std::vector<std::string>& names) {
    std::lock_guard lock(add_mutex_);
    CaOptions options;
    options.permitted_names = names;
    auto next = std::make_shared<List>(*list_.load());
    next->push_back(make(CertificateAuthority::create(options), names));
    list_.store(std::move(next));
}

std::string Issuers::bundle_pem() const {
    std::string pem;
    for (const auto& issuer : *list_.load())
        pem += issuer->authority->certificate_pem();
    return pem;
}

std::size_t Issuers::count() const {
    return list_.load()->size();
}

const CertificateAuthority& Issuers::first() const {
    return *list_.load()->front()->authority;
}

std::uint64_t Issuers::hits() const {
    std::uint64_t n = 0;
    for (const auto& issuer : *list_.load())
        n += issuer->leaves->hits();
    return n;
}

std::uint64_t Issuers::misses() const {
    std::uint64_t n = 0;
    for (const auto& issuer : *list_.load())
        n += issuer->leaves->misses();
    return n;
}

std::size_t Issuers::cached() const {
    std::size_t n = 0;
    for (const auto& issuer : *list_.load())
        n += issuer->leaves->size();
    return n;
}

} // namespace osf::ca
