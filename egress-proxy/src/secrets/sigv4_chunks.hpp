// A STREAMING-AWS4-HMAC-SHA256-PAYLOAD body ("aws-chunked") signed again as it
// streams: each chunk is
//   <hex size>;chunk-signature=<64 hex>\r\n<data>\r\n
// and its signature chains from the previous one (the first from the head's
// signature). Each chunk's signature is checked against the placeholder
// chain and replaced by the real chain's; a signature is as long as the one
// it replaces, so the body's length does not change. A chunk is held whole
// (its new signature depends on its data and goes before it), at most
// `max_chunk` bytes. Pure.
#pragma once

#include "secrets/sigv4_resigning.hpp"

#include <cstddef>
#include <string>
#include <string_view>

namespace osf::secrets::sigv4 {

class ChunkResigner {
public:
    static constexpr std::size_t default_max_chunk = 8 * 1024 * 1024;

    explicit ChunkResigner(ChunkSigning signing, std::size_t max_chunk = default_max_chunk);

    // Takes the next bytes of the body (as decoded from the HTTP framing) and
    // appends to `out` what may be sent. False on a problem (problem() says
    // which); nothing more may be sent then.
    bool feed(std::string_view in, std::string& out);
    // True once the last (empty) chunk has been read and sent.
    bool done() const { return state_ == State::done; }
    const std::string& problem() const { return problem_; }

private:
    enum class State { size_line, data, data_end, done, failed };
    bool fail(std::string why);
    bool end_of_line_read(std::string_view& in, std::string& into, std::size_t limit);
    bool finish_chunk(std::string& out);

    ChunkSigning signing_;
    std::size_t max_chunk_;
    State state_ = State::size_line;
    std::string line_;      // the size line being read
    std::string size_text_; // its size as written
    std::string given_signature_;
    std::size_t size_ = 0;
    std::string data_;
    std::string placeholder_previous_;
    std::string real_previous_;
    std::string problem_;
};

} // namespace osf::secrets::sigv4
