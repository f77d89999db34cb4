#include "admission/answer_framing.hpp"

#include "text/ascii.hpp"

namespace osf::admission {

AnswerFraming frame_answer(const AnswerFramingFacts& facts) {
    AnswerFraming out;
    if (facts.transfer_encoding_fields > 1) {
        out.refusal = "the answer has more than one Transfer-Encoding field";
        return out;
    }
    const bool chunked = facts.transfer_encoding_fields == 1;
    if (chunked && !text::iequals(text::trim(facts.transfer_encoding), "chunked")) {
        out.refusal = "the answer has a Transfer-Encoding other than chunked";
        return out;
    }
    const bool bodiless = facts.head_request || facts.status == 204 || facts.status == 304 ||
                          (facts.status >= 100 && facts.status < 200);
    if (bodiless) {
        out.body = AnswerBody::none;
        const bool describes_a_get = facts.head_request || facts.status == 304;
        out.keep_content_length = describes_a_get && facts.content_length.has_value();
        out.keep_chunked = describes_a_get && chunked;
        return out;
    }
    if (facts.content_length && !chunked)
        out.body = AnswerBody::length;
    else if (facts.client_version == 11) // close-delimited too: the connection stays usable
        out.body = AnswerBody::chunked;
    else // an HTTP/1.0 client cannot read chunks (RFC 9112 6.1): up to the close
        out.body = AnswerBody::close;
    return out;
}

} // namespace osf::admission
