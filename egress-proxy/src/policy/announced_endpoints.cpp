#include "policy/announced_endpoints.hpp"

#include "hosts/host.hpp"
#include "osf/host_port.hpp"
#include "policy/url_path.hpp"

#include <algorithm>
#include <boost/url/parse.hpp>
#include <boost/url/url.hpp>

namespace osf::policy {

namespace {

// WHATWG's parser strips or drops some of these and Python's keeps them: a
// reading the proxy cannot be sure of. '\\' is '/' to WHATWG, not to Python.
bool readable_as_one(std::string_view data) {
    return !data.empty() && std::none_of(data.begin(), data.end(), [](char c) {
        const auto b = static_cast<unsigned char>(c);
        return b <= 0x20 || b == 0x7f || c == '\\';
    });
}

} // namespace

std::optional<AnnouncedEndpoint> resolve_announced_endpoint(const StreamUrl& stream,
                                                            std::string_view data) {
    if (!readable_as_one(data)) return std::nullopt;
    const auto reference = boost::urls::parse_uri_reference(data);
    // Boost.URL's resolve() decodes some escapes ("%2F" becomes '/'), which no
    // client does: the path is judged as written, and again as resolved.
    if (!reference || !ambiguous_path(reference->encoded_path()).empty()) return std::nullopt;
    const std::string base_text =
        std::string(stream.scheme) + "://" + osf::host_port(stream.host, stream.port) +
        (stream.path.starts_with('/') ? std::string(stream.path) : "/" + std::string(stream.path));
    const auto base = boost::urls::parse_uri(base_text);
    if (!base) return std::nullopt;
    boost::urls::url resolved;
    if (boost::urls::resolve(*base, *reference, resolved).has_error()) return std::nullopt;
    const auto scheme = resolved.scheme();
    if (scheme != "http" && scheme != "https") return std::nullopt;
    if (resolved.has_userinfo()) return std::nullopt;
    const std::string host_text(resolved.encoded_host());
    if (host_text.find('%') != std::string::npos) return std::nullopt;
    auto host = hosts::canonical_host(host_text);
    if (!host) return std::nullopt;
    std::uint16_t port = scheme == "http" ? 80 : 443;
    if (resolved.has_port() && !resolved.port().empty()) {
        const auto text = resolved.port();
        if (text.size() > 5 ||
            !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
            return std::nullopt;
        const auto value = std::stoul(std::string(text));
        if (value < 1 || value > 65535) return std::nullopt;
        port = static_cast<std::uint16_t>(value);
    }
    const std::string path(resolved.encoded_path());
    if (!ambiguous_path(path).empty()) return std::nullopt;
    return AnnouncedEndpoint{std::string(scheme), *host, port, normalize_path(path)};
}

bool AnnouncedEndpoints::add(std::string_view server, const AnnouncedEndpoint& endpoint) {
    std::unique_lock lock(mutex_);
    auto it = by_host_.find(endpoint.host);
    if (it != by_host_.end()) {
        for (const auto& entry : it->second)
            if (entry.path == endpoint.path)
                return true; // the first server to announce it keeps it
    }
    if (count_ >= max_entries_) return false;
    if (it == by_host_.end()) it = by_host_.emplace(endpoint.host, std::vector<Entry>{}).first;
    it->second.push_back(Entry{endpoint.path, std::string(server)});
    ++count_;
    return true;
}

AnnouncedEndpoints::Match AnnouncedEndpoints::match(std::string_view host,
                                                    std::string_view path) const {
    Match found;
    if (count_.load() == 0) return found;
    std::shared_lock lock(mutex_);
    const auto it = by_host_.find(host);
    if (it == by_host_.end()) return found;
    found.on_host = true;
    for (const auto& entry : it->second) {
        if (path_is_under(path, entry.path)) {
            found.server = entry.server;
            break;
        }
    }
    return found;
}

std::optional<std::string> AnnouncedEndpoints::server_for(std::string_view host,
                                                          std::string_view path) const {
    return match(host, path).server;
}

bool AnnouncedEndpoints::on_host(std::string_view host) const {
    return match(host, "/").on_host;
}

std::size_t AnnouncedEndpoints::size() const {
    return count_.load();
}

} // namespace osf::policy
