// What the proxy's connections share and change while it runs: the counters,
// the egress log, the CA and its leaf cache, the MCP sessions of the legacy
// transport, the draining flag, the connection counter and the proxy's own
// endpoints. The read-only configuration it runs with (policy, MCP server
// policies, secrets, limits, upstream TLS) is `config`, built by config/.
#pragma once

#include "admin/metrics.hpp"
#include "ca/certificate_authority.hpp"
#include "ca/issuers.hpp"
#include "config/proxy_config.hpp"
#include "log/egress_log_writer.hpp"
#include "log/log_record.hpp"
#include "log/refusal_folding.hpp"
#include "mcp/session_registry.hpp"
#include "policy/announced_endpoints.hpp"
#include "secrets/aws_secret_loader.hpp"
#include "secrets/written_forms.hpp"

#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <memory>
#include <mutex>
#include <vector>

namespace osf::net {

struct ProxyRuntime {
    ProxyRuntime(const config::ProxyConfig& config,
                 std::unique_ptr<ca::CertificateAuthority> authority,
                 std::vector<std::string> permitted_names,
                 std::unique_ptr<log::EgressLogWriter> log);

    const config::ProxyConfig& config;
    // The rules new admissions read: config.rules at start, replaced whole by a
    // policy change (never edited). A request or tunnel holds the snapshot it
    // was admitted with until it ends.
    std::shared_ptr<const config::EgressRules> rules() const { return rules_.load(); }
    void replace_rules(std::shared_ptr<const config::EgressRules> next) {
        rules_.store(std::move(next));
    }
    // The CAs and their leaf caches (values: std::shared_ptr<boost::asio::ssl::context>).
    std::unique_ptr<ca::Issuers> issuers;
    std::unique_ptr<log::EgressLogWriter> log;
    admin::Metrics metrics;
    // The secrets in force (a rotated file secret replaces its value here).
    std::shared_ptr<secrets::LiveSecrets> secrets =
        config.secrets ? config.secrets
                       : std::make_shared<secrets::LiveSecrets>(secrets::SecretStore{});
    // Every form of a secret written for this sandbox: answers are masked against all.
    secrets::WrittenForms written_forms{*secrets->snapshot(),
                                        secrets::aws_written_forms(config.aws)};
    // The 2024-11-05 HTTP+SSE transport: tools/list ids and refusals per session.
    std::shared_ptr<mcp::SessionRegistry> mcp_sessions = std::make_shared<mcp::SessionRegistry>();
    // Endpoints MCP servers announced on their event streams: MCP
    // traffic on every connection, whatever the host's egress entry says.
    std::shared_ptr<policy::AnnouncedEndpoints> mcp_endpoints =
        std::make_shared<policy::AnnouncedEndpoints>();
    std::atomic<bool> draining{false};
    std::atomic<std::uint64_t> next_connection{1};
    // Where the proxy and its admin listener accept connections; set before the
    // first connection is accepted, read-only afterwards.
    std::vector<boost::asio::ip::tcp::endpoint> own_endpoints;

    // Writes the line (or counts it in a folded line to come) and counts the outcome.
    void write_log(const log::LogRecord& record);
    // Writes the folded lines of a window that has ended (every pending one when
    // `all`: before a checkpoint someone asked for, and at shutdown).
    void write_folded(bool all);
    // True when a connection to `to` would reach one of the proxy's own listeners.
    bool is_own_endpoint(const boost::asio::ip::tcp::endpoint& to) const;
    // True when it would reach a listener --peer-listeners names (on loopback).
    bool is_peer_listener(const boost::asio::ip::tcp::endpoint& to) const;

private:
    void append(const log::LogRecord& record);

    std::atomic<std::shared_ptr<const config::EgressRules>> rules_;
    std::mutex fold_mutex_; // the folder, and the order of its lines among the others it sees
    log::RefusalFolder folder_;
};

} // namespace osf::net
