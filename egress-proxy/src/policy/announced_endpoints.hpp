// MCP endpoints a declared server announces. The 2024-11-05 HTTP+SSE
// transport's GET stream opens with `event: endpoint` naming where the client
// is to POST (`/messages?sessionId=...`, a relative reference or an absolute
// URL, possibly on another host or port). That path is as much the server's
// MCP endpoint as the URL in the spec: a request to it is MCP traffic however
// the host is otherwise allowed (a wildcard `egress` entry included).
//
// resolve_announced_endpoint() reads an announcement as clients do (WHATWG
// URL and Python's urljoin agree on the forms it accepts) and refuses the
// rest, so that the proxy never forwards an announcement it reads otherwise
// than the client will. AnnouncedEndpoints holds what streams announced, for
// every connection (the POST seldom shares the stream's), bounded in count.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

namespace osf::policy {

// The URL of the stream the announcement arrived on.
struct StreamUrl {
    std::string_view scheme; // "http" | "https"
    std::string_view host;   // canonical
    std::uint16_t port = 0;
    std::string_view path; // the request path (no query)
};

struct AnnouncedEndpoint {
    std::string scheme;
    std::string host; // canonical
    std::uint16_t port = 0;
    std::string path; // normalize_path() of the resolved path
};

// The endpoint an `endpoint` event's data names, resolved against the stream's
// URL (RFC 3986 5.2: absolute URL, "//host/p", "/p", "p", "?q"). nullopt, and
// the event is not passed, when clients could read it differently or it names
// no web destination: whitespace, control characters or '\\' anywhere, a
// scheme other than http/https, user information, an invalid host or port, a
// path with no single reading (policy::ambiguous_path).
std::optional<AnnouncedEndpoint> resolve_announced_endpoint(const StreamUrl& stream,
                                                            std::string_view data);

// Thread-safe. A request is to an announced endpoint when its host is the
// endpoint's and its path is the endpoint's path or below it in any reading
// an origin routes on (path_is_under). The port and scheme are not compared:
// the same host's application on another port is in doubt, and doubt fails
// closed (read as MCP).
class AnnouncedEndpoints {
public:
    explicit AnnouncedEndpoints(std::size_t max_entries = 1024) : max_entries_(max_entries) {}

    // Records that `server` announced `endpoint`. False when it is new and
    // the table is full: the proxy then drops the announcement (the client
    // never learns an endpoint the proxy would not recognise).
    bool add(std::string_view server, const AnnouncedEndpoint& endpoint);

    // The server that announced an endpoint this request (canonical host,
    // request path) is to, if any.
    std::optional<std::string> server_for(std::string_view host, std::string_view path) const;

    // True when an endpoint was announced on this host (any port): there,
    // like at a declared endpoint, a path must have one reading.
    bool on_host(std::string_view host) const;

    // Both, with one look (admission asks them of every request).
    struct Match {
        bool on_host = false;
        std::optional<std::string> server;
    };
    Match match(std::string_view host, std::string_view path) const;

    std::size_t size() const;

private:
    struct Entry {
        std::string path;
        std::string server;
    };
    const std::size_t max_entries_;
    mutable std::shared_mutex mutex_;    // every request reads, few streams write
    std::atomic<std::size_t> count_ = 0; // read without the lock: most runs announce nothing
    std::map<std::string, std::vector<Entry>, std::less<>> by_host_;
};

} // namespace osf::policy
