#include "h2/message_mapping.hpp"

#include "text/ascii.hpp"

#include <charconv>
#include <iterator>

namespace osf::h2 {

namespace {

std::string_view pseudo(const HeaderList& fields, std::string_view name) {
    for (const auto& f : fields)
        if (f.name == name) return f.value;
    return {};
}

bool has_pseudo(const HeaderList& fields, std::string_view name) {
    for (const auto& f : fields)
        if (f.name == name) return true;
    return false;
}

// A byte that would end a line of the HTTP/1.1 head being written (nghttp2
// refuses such fields already; the head is built only of fields that hold none).
bool breaks_a_line(const HeaderList& fields) {
    for (const auto& f : fields)
        if (f.name.find_first_of(std::string_view("\r\n\0", 3)) != std::string::npos ||
            f.value.find_first_of(std::string_view("\r\n\0", 3)) != std::string::npos)
            return true;
    return false;
}

void append_field(std::string_view name, std::string_view value, std::string& out) {
    out.append(name);
    out.append(": ");
    out.append(value);
    out.append("\r\n");
}

} // namespace

Http1Request to_http1_request(const HeaderList& fields, bool end_stream) {
    Http1Request r;
    r.method = std::string(pseudo(fields, ":method"));
    r.path = std::string(pseudo(fields, ":path"));
    const auto authority = pseudo(fields, ":authority");
    if (r.method.empty()) {
        r.problem = "no :method";
        return r;
    }
    if (breaks_a_line(fields)) {
        r.problem = "a field with CR, LF or NUL";
        return r;
    }
    // CONNECT (a tunnel inside the tunnel) is refused as on HTTP/1.1; so is
    // anything but https inside an intercepted TLS tunnel.
    if (r.method == "CONNECT" || has_pseudo(fields, ":protocol")) {
        r.problem = "CONNECT inside an intercepted tunnel";
        return r;
    }
    if (pseudo(fields, ":scheme") != "https") {
        r.problem = "a :scheme other than https inside an intercepted TLS tunnel";
        return r;
    }
    if (r.path.empty()) {
        r.problem = "no :path";
        return r;
    }
    // One authority: a Host field that names another than :authority is the
    // kind of disagreement request smuggling lives on (RFC 9113 8.3.1).
    std::string_view host;
    std::size_t hosts = 0;
    std::string cookie;
    bool content_length = false;
    for (const auto& f : fields) {
        if (f.name == "host") {
            host = f.value;
            ++hosts;
        } else if (f.name == "cookie") {
            if (!cookie.empty()) cookie.append("; "); // RFC 9113 8.2.3
            cookie.append(f.value);
        } else if (f.name == "content-length") {
            content_length = true;
        }
    }
    if (hosts > 1 || (hosts == 1 && !authority.empty() && !text::iequals(host, authority))) {
        r.problem = "a host field that differs from :authority";
        return r;
    }
    if (authority.empty() && hosts == 0) {
        r.problem = "neither :authority nor host";
        return r;
    }
    auto& out = r.head;
    out.reserve(256);
    out.append(r.method);
    out.push_back(' ');
    out.append(r.path);
    out.append(" HTTP/1.1\r\n");
    append_field("host", authority.empty() ? host : authority, out);
    for (const auto& f : fields) {
        if (f.name.starts_with(':') || f.name == "host" || f.name == "cookie" || f.name == "te" ||
            is_connection_specific(f.name))
            continue;
        append_field(f.name, f.value, out);
    }
    if (!cookie.empty()) append_field("cookie", cookie, out);
    if (!content_length && !end_stream) {
        append_field("transfer-encoding", "chunked", out);
        r.chunked = true;
    }
    out.append("\r\n");
    return r;
}

void append_chunk(std::string_view data, std::string& out) {
    if (data.empty()) return; // an empty chunk would end the body
    char digits[2 * sizeof(std::size_t)];
    const auto [end, ec] = std::to_chars(digits, digits + sizeof digits, data.size(), 16);
    out.append(digits, end);
    out.append("\r\n");
    out.append(data);
    out.append("\r\n");
}

void append_last_chunk(const HeaderList& trailers, std::string& out) {
    out.append("0\r\n");
    for (const auto& f : trailers)
        if (!f.name.starts_with(':') && !is_connection_specific(f.name))
            append_field(f.name, f.value, out);
    out.append("\r\n");
}

bool is_connection_specific(std::string_view name) {
    return text::iequals(name, "connection") || text::iequals(name, "keep-alive") ||
           text::iequals(name, "proxy-connection") || text::iequals(name, "transfer-encoding") ||
           text::iequals(name, "upgrade");
}

HeaderList to_h2_fields(const boost::beast::http::fields& fields) {
    HeaderList out;
    for (const auto& f : fields) {
        if (is_connection_specific(f.name_string())) continue;
        out.push_back({text::lower(f.name_string()), std::string(f.value())});
    }
    return out;
}

HeaderList added_fields(const boost::beast::http::fields& fields, const HeaderList& head) {
    std::vector<bool> matched(head.size(), false);
    HeaderList added;
    for (auto& field : to_h2_fields(fields)) {
        bool in_head = false;
        for (std::size_t i = 0; i < head.size() && !in_head; ++i) {
            if (!matched[i] && head[i].name == field.name && head[i].value == field.value) {
                matched[i] = true;
                in_head = true;
            }
        }
        if (!in_head) added.push_back(std::move(field));
    }
    return added;
}

HeaderList to_h2_answer(const boost::beast::http::response_header<>& head) {
    HeaderList out;
    out.push_back({":status", std::to_string(head.result_int())});
    auto fields = to_h2_fields(head);
    out.insert(out.end(), std::make_move_iterator(fields.begin()),
               std::make_move_iterator(fields.end()));
    return out;
}

HeaderList to_h2_request(const boost::beast::http::request_header<>& head) {
    HeaderList out;
    out.push_back({":method", std::string(head.method_string())});
    out.push_back({":scheme", "https"});
    out.push_back({":authority", std::string(head[boost::beast::http::field::host])});
    out.push_back({":path", std::string(head.target())});
    for (const auto& f : head) {
        const auto name = f.name_string();
        if (text::iequals(name, "host") || text::iequals(name, "te") ||
            is_connection_specific(name))
            continue;
        out.push_back({text::lower(name), std::string(f.value())});
    }
    out.push_back({"te", "trailers"});
    return out;
}

Http1Answer to_http1_answer(const HeaderList& fields, bool head_request) {
    Http1Answer a;
    const auto status = pseudo(fields, ":status");
    unsigned code = 0;
    const auto [end, ec] = std::from_chars(status.data(), status.data() + status.size(), code);
    if (status.size() != 3 || ec != std::errc() || end != status.data() + status.size() ||
        code < 100) {
        a.problem = "an answer without a valid :status";
        return a;
    }
    if (breaks_a_line(fields)) {
        a.problem = "a field with CR, LF or NUL";
        return a;
    }
    a.interim = code < 200;
    auto& out = a.head;
    out.append("HTTP/1.1 ");
    out.append(status);
    out.push_back(' ');
    out.append(boost::beast::http::obsolete_reason(static_cast<boost::beast::http::status>(code)));
    out.append("\r\n");
    bool content_length = false;
    for (const auto& f : fields) {
        if (f.name.starts_with(':') || is_connection_specific(f.name)) continue;
        if (f.name == "content-length") content_length = true;
        append_field(f.name, f.value, out);
    }
    const bool bodiless = a.interim || code == 204 || code == 304 || head_request;
    if (!bodiless && !content_length) {
        append_field("transfer-encoding", "chunked", out);
        a.chunked = true;
    }
    out.append("\r\n");
    return a;
}

} // namespace osf::h2
