#include "h2/answer_reader.hpp"

#include <boost/asio/buffer.hpp>
#include <iterator>

namespace osf::h2 {

namespace http = boost::beast::http;

AnswerReader::AnswerReader(bool head_request, std::size_t max_header_bytes)
    : head_request_(head_request), max_header_bytes_(max_header_bytes) {
    reset_parser();
}

void AnswerReader::reset_parser() {
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(max_header_bytes_));
    parser_->body_limit(boost::none);
    if (head_request_) parser_->skip(true);
}

void AnswerReader::feed(std::string_view bytes, Pieces& out) {
    if (whole_ || out.error) return; // nothing may follow an answer
    pending_.commit(boost::asio::buffer_copy(pending_.prepare(bytes.size()),
                                             boost::asio::buffer(bytes.data(), bytes.size())));
    char scratch[16 * 1024];
    for (;;) {
        auto& body = parser_->get().body();
        body.data = scratch;
        body.size = sizeof scratch;
        boost::beast::error_code ec;
        const std::size_t used = parser_->put(pending_.data(), ec);
        pending_.consume(used);
        const std::size_t produced = sizeof scratch - parser_->get().body().size;
        out.body.append(scratch, produced);
        if (ec && ec != http::error::need_more && ec != http::error::need_buffer) {
            out.error = true;
            return;
        }
        if (parser_->is_header_done() && !head_done_) {
            if (parser_->get().result_int() / 100 == 1) { // interim: not forwarded
                reset_parser();
                continue;
            }
            head_done_ = true;
            out.head = to_h2_answer(parser_->get().base());
            // Only a chunked answer can have trailer fields to tell from its head's.
            if (parser_->chunked())
                head_fields_.assign(std::next(out.head->begin()), out.head->end());
        }
        if (parser_->is_done()) {
            whole_ = true;
            out.end = parser_->chunked() ? added_fields(parser_->get().base(), head_fields_)
                                         : HeaderList{};
            pending_.consume(pending_.size());
            return;
        }
        if (ec == http::error::need_more || (used == 0 && produced == 0)) return;
    }
}

} // namespace osf::h2
