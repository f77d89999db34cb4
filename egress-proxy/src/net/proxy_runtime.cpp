#include "net/proxy_runtime.hpp"

#include "log/policy_record.hpp"
#include "net/peer_listeners.hpp"
#include "net/tls_contexts.hpp"

namespace osf::net {

namespace {
// Enough for every host a sandbox could reasonably use; evicts least recently used.
constexpr std::size_t leaf_cache_capacity = 4096;
} // namespace

ProxyRuntime::ProxyRuntime(const config::ProxyConfig& cfg,
                           std::unique_ptr<ca::CertificateAuthority> ca,
                           std::vector<std::string> permitted_names,
                           std::unique_ptr<log::EgressLogWriter> writer)
    : config(cfg),
      issuers(std::make_unique<ca::Issuers>(
          std::move(ca), std::move(permitted_names), leaf_cache_capacity,
          [http2 = cfg.options.http2](const ca::Leaf& leaf, X509* ca_certificate) {
              return std::static_pointer_cast<void>(make_leaf_context(leaf, ca_certificate, http2));
          })),
      log(std::move(writer)), rules_(cfg.rules) {
    // A rotation is a change of what the sandbox's requests carry: a policy
    // line names the secret (never a value). The new value's forms are masked
    // in answers from now on, the old ones still are (WrittenForms keeps them).
    secrets->on_rotation([this](const std::string& name, const secrets::SecretStore& store) {
        written_forms.remember(store.value_forms());
        const log::PolicyRecord line{"rotate", {}, {}, "ref:file", rules()->generation, {}, name};
        if (log)
            log->write(log::policy_line(line, log::format_time(std::chrono::system_clock::now())));
    });
}

void ProxyRuntime::write_log(const log::LogRecord& record) {
    switch (record.outcome) {
    case Outcome::allowed:
        metrics.allowed.fetch_add(1, std::memory_order_relaxed);
        break;
    case Outcome::error:
        metrics.errors.fetch_add(1, std::memory_order_relaxed);
        break;
    case Outcome::refused:
        metrics.count_refusal(record.refused_by.value_or(RefusalReason::bad_request));
        break;
    }
    if (!config.options.fold_refusals || !log::RefusalFolder::foldable(record)) {
        append(record);
        return;
    }
    std::lock_guard lock(fold_mutex_);
    for (const auto& folded : folder_.take_due(record.time))
        append(folded);
    if (folder_.admit(record))
        append(record);
    else
        metrics.log_lines_folded.fetch_add(1, std::memory_order_relaxed);
}

void ProxyRuntime::write_folded(bool all) {
    std::lock_guard lock(fold_mutex_);
    for (const auto& folded : folder_.take_due(std::chrono::system_clock::now(), all))
        append(folded);
}

void ProxyRuntime::append(const log::LogRecord& record) {
    if (!log->write(log::to_json_line(record)))
        metrics.log_write_failures.fetch_add(1, std::memory_order_relaxed);
}

bool ProxyRuntime::is_own_endpoint(const boost::asio::ip::tcp::endpoint& to) const {
    for (const auto& own : own_endpoints) {
        if (own.port() != to.port()) continue;
        if (own.address() == to.address()) return true;
        if (!own.address().is_unspecified()) continue;
        // Listening on every address: `to` is the proxy when it is one of this host's
        // addresses, which is exactly when a socket can bind to it.
        boost::asio::io_context io;
        boost::asio::ip::tcp::socket probe(io);
        boost::system::error_code ec;
        probe.open(to.protocol(), ec);
        if (!ec) probe.bind({to.address(), 0}, ec);
        if (!ec) return true;
    }
    return false;
}

bool ProxyRuntime::is_peer_listener(const boost::asio::ip::tcp::endpoint& to) const {
    // Peers listen on the host's loopback (sandbox-local starts them so): other
    // destinations need no look at the directory.
    if (config.options.peer_listeners.empty() || !to.address().is_loopback()) return false;
    for (const auto& peer : read_peer_listeners(config.options.peer_listeners))
        if (peer.port() == to.port() &&
            (peer.address() == to.address() || peer.address().is_unspecified()))
            return true;
    return false;
}

} // namespace osf::net
