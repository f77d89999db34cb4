// Fuzz target: an MCP message read whole the way the proxy reads one (issue
// 14, class 2): a head parsed with request_parser<empty_body> (or
// response_parser for an answer), checked, then moved into a string_body
// parser that reads the body, chunked or not, with its trailer fields. What
// goes out must be exactly the checked head: restore_checked_head puts it
// back and says whether Beast had added trailers. Byte 0 picks a request
// (even) or an answer (odd); the rest is the message as it arrives.
#include "fuzz_check.hpp"
#include "net/http_framing.hpp"
#include "net/http_messages.hpp"

#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <stdexcept>
#include <string>

namespace {

namespace http = boost::beast::http;
using osf::fuzz::as_text;

constexpr std::size_t max_message = 64 * 1024;

template <bool isRequest> void read_message(std::string_view text) {
    http::parser<isRequest, http::empty_body> head;
    head.header_limit(8192);
    head.body_limit(boost::none);
    boost::system::error_code ec;
    std::size_t used = head.put(boost::asio::buffer(text.data(), text.size()), ec);
    if (ec || !head.is_header_done()) return;
    // Refused before any body is read whole (a request: admission and the
    // secret and AWS paths; an answer: admission::frame_answer): only chunked,
    // once, is framed again.
    if (osf::net::other_transfer_coding(head.get())) return;
    // What the proxy does to a head before it reads the body.
    osf::net::strip_hop_by_hop(head.get().base(), false);
    std::string checked_text;
    osf::net::append_head(head.get().base(), checked_text);
    const auto checked_fields = std::distance(head.get().begin(), head.get().end());

    // As the proxy does: a Content-Length over the limit is refused before the
    // body is read (Beast checks the limit only while parsing a head, and its
    // string body reserves what the head says: found by this target).
    if (head.content_length() && *head.content_length() > max_message) return;
    http::parser<isRequest, http::string_body> whole{std::move(head)};
    whole.body_limit(max_message);
    auto checked = whole.get().base();
    while (!whole.is_done() && used < text.size()) {
        const auto n = whole.put(boost::asio::buffer(text.data() + used, text.size() - used), ec);
        used += n;
        if (ec == http::error::need_more) {
            ec = {};
            if (n == 0) break;
            continue;
        }
        if (ec) return; // malformed, or over the limit: refused before anything goes out
    }
    if (!whole.is_done() && whole.need_eof()) whole.put_eof(ec);
    if (ec || !whole.is_done()) return;          // the peer left mid-body: nothing goes out
    const bool parsed_chunked = whole.chunked(); // the parser's reading of the framing
    auto message = whole.release();
    const auto grown = std::distance(message.begin(), message.end()) != checked_fields;
    const bool trailers = osf::net::restore_checked_head(message, std::move(checked));
    OSF_FUZZ_CHECK(trailers == grown);
    // Trailers come only after a body the parser read as chunked.
    OSF_FUZZ_CHECK(!trailers || parsed_chunked);
    std::string sent_text;
    osf::net::append_head(message.base(), sent_text);
    OSF_FUZZ_CHECK(sent_text == checked_text);
    // The body the proxy judges and forwards is framed by the checked head alone.
    try {
        message.prepare_payload();
    } catch (const std::invalid_argument&) {
        return; // a body Beast will not frame (TRACE with a body): the proxy's exchange aborts
    }
    OSF_FUZZ_CHECK(!message.chunked());
    OSF_FUZZ_CHECK(message.body().size() <= max_message);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 1) return 0;
    const auto text = as_text(data + 1, size - 1);
    if (data[0] % 2 == 0)
        read_message<true>(text);
    else
        read_message<false>(text);
    return 0;
}
