// Fuzz target: a client's request head as the proxy reads it (Beast's
// request_parser<empty_body> with the proxy's header limit), then everything
// the proxy does with a parsed head before it opens a socket: the CONNECT
// authority, the absolute-form URL or origin-form path, the Host header,
// hop-by-hop removal and secret substitution; and the head as the proxy
// writes it out again (net/http_framing), held to Beast's own writer.
//
// The input is raw bytes from the client. It is fed in two reads (the split
// point is derived from the bytes, so the corpus stays plain HTTP) the way
// async_read_header feeds a growing buffer, and the result must match a
// single read of the same bytes.
#include "config/proxy_config.hpp"
#include "fuzz_check.hpp"
#include "hosts/host.hpp"
#include "net/http_framing.hpp"
#include "net/http_messages.hpp"
#include "secrets/basic_auth.hpp"
#include "secrets/placeholder_substitution.hpp"
#include "secrets/secret_store.hpp"

#include <algorithm>
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/beast/websocket/rfc6455.hpp>
#include <boost/url/parse.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace http = boost::beast::http;
using osf::fuzz::as_text;

using Parser = http::request_parser<http::empty_body>;

struct HeadResult {
    bool done = false;
    boost::system::error_code error;
};

// What serve_requests does: limits as configured, body left for later.
void configure(Parser& parser) {
    parser.header_limit(static_cast<std::uint32_t>(osf::config::Limits{}.max_header_bytes));
    parser.body_limit(boost::none);
}

// Feeds `text` as if the socket delivered `first` bytes, then the rest.
HeadResult read_head(Parser& parser, std::string_view text, std::size_t first) {
    HeadResult result;
    std::size_t consumed = 0;
    std::size_t available = first;
    while (!parser.is_header_done()) {
        boost::system::error_code ec;
        consumed +=
            parser.put(boost::asio::buffer(text.data() + consumed, available - consumed), ec);
        if (ec == http::error::need_more) {
            if (available == text.size()) return result; // the client stopped mid-head
            available = text.size();
            continue;
        }
        if (ec) {
            result.error = ec;
            return result;
        }
    }
    result.done = true;
    return result;
}

// canonical_host's contract, checked on every host the proxy canonicalises.
std::optional<std::string> checked_canonical(std::string_view raw) {
    auto canonical = osf::hosts::canonical_host(raw);
    if (!canonical) return canonical;
    OSF_FUZZ_CHECK(!canonical->empty());
    OSF_FUZZ_CHECK(canonical->back() != '.');
    OSF_FUZZ_CHECK(std::none_of(canonical->begin(), canonical->end(), [](char c) {
        return (c >= 'A' && c <= 'Z') || c == '[' || c == ']';
    }));
    OSF_FUZZ_CHECK(osf::hosts::canonical_host(*canonical) == canonical);
    return canonical;
}

std::optional<osf::hosts::HostPort> checked_split(std::string_view authority,
                                                  std::uint16_t default_port) {
    auto hp = osf::hosts::split_host_port(authority, default_port);
    if (hp) {
        OSF_FUZZ_CHECK(!hp->host.empty());
        OSF_FUZZ_CHECK(hp->port != 0);
    }
    return hp;
}

std::string lower(std::string_view s) {
    std::string out(s);
    for (auto& c : out)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return out;
}

std::string trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
        s.remove_suffix(1);
    return std::string(s);
}

// Where the request goes, as handle_request and handle_connect work it out.
void check_target(const http::request<http::empty_body>& req) {
    const std::string_view target = req.target();
    std::uint16_t port = 80;
    if (req.method() == http::verb::connect) {
        if (auto hp = checked_split(target, 443)) {
            checked_canonical(hp->host);
            port = hp->port;
        }
    } else if (!target.starts_with("/")) {
        auto url = boost::urls::parse_absolute_uri(target);
        // The proxy refuses a URL whose host does not canonicalise before it
        // looks further.
        if (url && checked_canonical(url->encoded_host())) {
            const bool tls = url->scheme() == "https";
            port = url->has_port() ? url->port_number() : (tls ? 443 : 80);
            // As handle_request builds the origin-form target; it must name a path.
            std::string resource(url->encoded_resource());
            if (!resource.starts_with('/')) resource.insert(0, "/");
            OSF_FUZZ_CHECK(!resource.substr(0, resource.find_first_of("?#")).empty());
        }
    }
    const auto host_header = req[http::field::host];
    if (!host_header.empty())
        if (auto hp = checked_split(host_header, port == 0 ? 80 : port))
            checked_canonical(hp->host);
}

// strip_hop_by_hop removes the hop-by-hop fields and those Connection names,
// and never the fields that frame the message or name its destination: the
// proxy forwards the body as the client framed it, so dropping
// Content-Length or Transfer-Encoding would send it unframed.
void check_strip(const http::request<http::empty_body>& req) {
    http::fields fields = req.base();
    const bool keep_upgrade = boost::beast::websocket::is_upgrade(req);
    std::set<std::string> named;
    for (auto it = fields.find(http::field::connection);
         it != fields.end() && it->name() == http::field::connection; ++it) {
        std::string_view value = it->value();
        while (!value.empty()) {
            const auto comma = value.find(',');
            named.insert(lower(trim(value.substr(0, comma))));
            value = comma == std::string_view::npos ? std::string_view() : value.substr(comma + 1);
        }
    }
    const auto framing_before = std::make_tuple(fields.count(http::field::content_length),
                                                fields.count(http::field::transfer_encoding),
                                                fields.count(http::field::host));

    osf::net::strip_hop_by_hop(fields, keep_upgrade);

    for (auto field :
         {http::field::keep_alive, http::field::proxy_connection, http::field::proxy_authorization,
          http::field::proxy_authenticate, http::field::te, http::field::trailer})
        OSF_FUZZ_CHECK(fields.count(field) == 0);
    if (keep_upgrade) {
        OSF_FUZZ_CHECK(fields.count(http::field::connection) == 1);
        OSF_FUZZ_CHECK(fields[http::field::connection] == "Upgrade");
    } else {
        OSF_FUZZ_CHECK(fields.count(http::field::connection) == 0);
        OSF_FUZZ_CHECK(fields.count(http::field::upgrade) == 0);
    }
    const std::set<std::string> kept = {"close",          "keep-alive",        "connection",
                                        "content-length", "transfer-encoding", "host"};
    for (const auto& name : named)
        if (!name.empty() && !kept.contains(name) && !(keep_upgrade && name == "upgrade"))
            OSF_FUZZ_CHECK(fields.count(name) == 0);
    const auto framing_after = std::make_tuple(fields.count(http::field::content_length),
                                               fields.count(http::field::transfer_encoding),
                                               fields.count(http::field::host));
    OSF_FUZZ_CHECK(framing_before == framing_after);
}

const osf::secrets::SecretStore& store() {
    static const osf::secrets::SecretStore s({
        {"API_TOKEN", osf::secret_placeholder("API_TOKEN"), "tok-value-1", {}, {}},
        {"DB_PASSWORD", osf::secret_placeholder("DB_PASSWORD"), "pw:with:colons", {}, {}},
    });
    return s;
}

// A placeholder the proxy should have replaced: the prefix followed by a run
// of name characters that is exactly a declared name.
bool has_live_placeholder(std::string_view text) {
    std::size_t at = 0;
    while ((at = text.find(osf::secrets::placeholder_prefix, at)) != std::string_view::npos) {
        std::size_t end = at + osf::secrets::placeholder_prefix.size();
        const std::size_t start = end;
        while (end < text.size() && ((text[end] >= 'A' && text[end] <= 'Z') ||
                                     (text[end] >= '0' && text[end] <= '9') || text[end] == '_'))
            ++end;
        const auto name = text.substr(start, end - start);
        if (name == "API_TOKEN" || name == "DB_PASSWORD") return true;
        at = end;
    }
    return false;
}

// After substitution no declared placeholder is left, in plain values or in
// Basic credentials; after restore_placeholders no real value is visible.
void check_secrets(const http::request<http::empty_body>& req) {
    http::fields fields = req.base();
    const auto count_before = std::distance(fields.begin(), fields.end());
    const auto used = store().substitute(fields);
    OSF_FUZZ_CHECK(std::is_sorted(used.begin(), used.end()));
    OSF_FUZZ_CHECK(std::adjacent_find(used.begin(), used.end()) == used.end());
    OSF_FUZZ_CHECK(std::distance(fields.begin(), fields.end()) == count_before);
    for (const auto& field : fields) {
        OSF_FUZZ_CHECK(!has_live_placeholder(field.value()));
        if (auto basic = osf::secrets::parse_basic(field.value()))
            OSF_FUZZ_CHECK(!has_live_placeholder(basic->decoded));
    }
    store().restore_placeholders(fields);
    for (const auto& field : fields) {
        if (field.name() == http::field::content_length ||
            field.name() == http::field::transfer_encoding)
            continue;
        for (const auto& secret : store().secrets())
            OSF_FUZZ_CHECK(field.value().find(secret.value) == std::string_view::npos);
    }
}

// The head the proxy forwards is the bytes Beast's own writer makes of it, and
// reads back as the same head.
void check_forwarded_head(const http::request<http::empty_body>& req) {
    std::string written;
    osf::net::append_head(req.base(), written);
    std::ostringstream beast;
    beast << req.base();
    OSF_FUZZ_CHECK(written == beast.str());
    osf::net::MessageFramer framer(req);
    const auto bytes = boost::beast::buffers_to_string(framer.next({}, false));
    OSF_FUZZ_CHECK(bytes == written);
    Parser again;
    configure(again);
    const auto reread = read_head(again, bytes, bytes.size());
    OSF_FUZZ_CHECK(reread.done);
    OSF_FUZZ_CHECK(again.get().target() == req.target());
    OSF_FUZZ_CHECK(again.get().method_string() == req.method_string());
    OSF_FUZZ_CHECK(again.get().version() == req.version());
    OSF_FUZZ_CHECK(std::equal(req.begin(), req.end(), again.get().begin(), again.get().end(),
                              [](const auto& a, const auto& b) {
                                  return a.name_string() == b.name_string() &&
                                         a.value() == b.value();
                              }));
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto text = as_text(data, size);
    std::size_t sum = 0;
    for (std::size_t i = 0; i < size; ++i)
        sum += data[i];
    const std::size_t split = size == 0 ? 0 : sum % (size + 1);

    Parser parser;
    configure(parser);
    const auto result = read_head(parser, text, split);

    // The read pattern must not change the outcome. (It may change when a
    // malformed head is noticed: after a partial read Beast waits for the
    // blank line before parsing again, so "bad version" can become "need
    // more" until the header timeout. Either way nothing is forwarded.)
    Parser whole;
    configure(whole);
    const auto reference = read_head(whole, text, size);
    OSF_FUZZ_CHECK(result.done == reference.done);
    if (!result.done) return 0;
    const auto& req = parser.get();
    OSF_FUZZ_CHECK(req.target() == whole.get().target());
    OSF_FUZZ_CHECK(req.method_string() == whole.get().method_string());
    OSF_FUZZ_CHECK(req.version() == whole.get().version());
    OSF_FUZZ_CHECK(std::equal(req.begin(), req.end(), whole.get().begin(), whole.get().end(),
                              [](const auto& a, const auto& b) {
                                  return a.name_string() == b.name_string() &&
                                         a.value() == b.value();
                              }));

    check_target(req);
    check_strip(req);
    check_secrets(req);
    check_forwarded_head(req);
    return 0;
}
