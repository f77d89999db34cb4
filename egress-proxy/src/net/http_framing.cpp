#include "net/http_framing.hpp"

#include <charconv>

namespace osf::net {

namespace http = boost::beast::http;

namespace {

void append_version(unsigned version, std::string& out) {
    out.append("HTTP/");
    out.push_back(static_cast<char>('0' + version / 10));
    out.push_back('.');
    out.push_back(static_cast<char>('0' + version % 10));
}

template <class Fields> void append_fields(const Fields& fields, std::string& out) {
    for (const auto& field : fields) {
        out.append(field.name_string());
        out.append(": ");
        out.append(field.value());
        out.append("\r\n");
    }
    out.append("\r\n");
}

// Lowercase hexadecimal, as Beast writes a chunk's size.
void append_hex(std::size_t n, std::string& out) {
    char digits[2 * sizeof n];
    const auto [end, ec] = std::to_chars(digits, digits + sizeof digits, n, 16);
    out.append(digits, end);
}

} // namespace

void append_head(const http::request_header<>& head, std::string& out) {
    out.append(head.method_string());
    out.push_back(' ');
    out.append(head.target());
    out.push_back(' ');
    append_version(head.version(), out);
    out.append("\r\n");
    append_fields(head, out);
}

void append_head(const http::response_header<>& head, std::string& out) {
    append_version(head.version(), out);
    const unsigned code = head.result_int();
    const char status[] = {' ', static_cast<char>('0' + code / 100 % 10),
                           static_cast<char>('0' + code / 10 % 10),
                           static_cast<char>('0' + code % 10), ' '};
    out.append(status, sizeof status);
    out.append(head.reason()); // the upstream's own, or the standard one when it sent none
    out.append("\r\n");
    append_fields(head, out);
}

std::array<boost::asio::const_buffer, 3> MessageFramer::next(std::string_view data, bool last) {
    if (done_) return {};
    if (head_sent_)
        prefix_.clear(); // the previous piece has gone out
    else
        head_sent_ = true;
    if (bodiless_) {
        done_ = true;
        return {boost::asio::buffer(prefix_)};
    }
    std::string_view suffix;
    if (chunked_) {
        if (!data.empty()) {
            append_hex(data.size(), prefix_);
            prefix_.append("\r\n");
            suffix = last ? "\r\n0\r\n\r\n" : "\r\n";
        } else if (last) {
            suffix = "0\r\n\r\n";
        }
        if (last && !trailers_.empty()) {
            last_.assign(data.empty() ? "0\r\n" : "\r\n0\r\n");
            last_.append(trailers_);
            last_.append("\r\n");
            suffix = last_;
        }
    }
    done_ = last;
    return {boost::asio::buffer(prefix_), boost::asio::buffer(data.data(), data.size()),
            boost::asio::buffer(suffix.data(), suffix.size())};
}

} // namespace osf::net
