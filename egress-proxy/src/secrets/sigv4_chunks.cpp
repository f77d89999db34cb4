#include "secrets/sigv4_chunks.hpp"

#include "secrets/sigv4_credential.hpp"

namespace osf::secrets::sigv4 {

namespace {

constexpr std::size_t max_size_line = 256;
constexpr std::string_view signature_key = ";chunk-signature=";

} // namespace

ChunkResigner::ChunkResigner(ChunkSigning signing, std::size_t max_chunk)
    : signing_(std::move(signing)), max_chunk_(max_chunk),
      placeholder_previous_(signing_.placeholder_seed), real_previous_(signing_.real_seed) {}

bool ChunkResigner::fail(std::string why) {
    state_ = State::failed;
    problem_ = std::move(why);
    data_.clear();
    data_.shrink_to_fit();
    return false;
}

// Moves bytes of `in` into `into` up to and including "\r\n". True when the
// line is whole (without its "\r\n" in `into`).
bool ChunkResigner::end_of_line_read(std::string_view& in, std::string& into, std::size_t limit) {
    while (!in.empty()) {
        into += in.front();
        in.remove_prefix(1);
        if (into.size() > limit) return false;
        if (into.ends_with("\r\n")) {
            into.resize(into.size() - 2);
            return true;
        }
    }
    return false;
}

bool ChunkResigner::finish_chunk(std::string& out) {
    const std::string hash = sha256_hex(data_);
    const std::string expected =
        signature(signing_.placeholder_key, chunk_string_to_sign(signing_.amz_date, signing_.scope,
                                                                 placeholder_previous_, hash));
    if (!same_signature(expected, given_signature_))
        return fail("a chunk's signature does not verify with the placeholder credentials");
    const std::string real =
        signature(signing_.real_key,
                  chunk_string_to_sign(signing_.amz_date, signing_.scope, real_previous_, hash));
    placeholder_previous_ = given_signature_;
    real_previous_ = real;
    out += size_text_;
    out += signature_key;
    out += real;
    out += "\r\n";
    out += data_;
    out += "\r\n";
    data_.clear();
    if (size_ == 0) state_ = State::done;
    return true;
}

bool ChunkResigner::feed(std::string_view in, std::string& out) {
    while (!in.empty()) {
        switch (state_) {
        case State::failed:
            return false;
        case State::done:
            return fail("bytes after the last chunk");
        case State::size_line: {
            if (!end_of_line_read(in, line_, max_size_line)) {
                if (line_.size() > max_size_line) return fail("a chunk's size line is too long");
                return true; // the rest of the line comes later
            }
            const auto at = line_.find(signature_key);
            if (at == std::string::npos || at == 0 || at > 16)
                return fail("a chunk without chunk-signature");
            size_text_ = line_.substr(0, at);
            given_signature_ = line_.substr(at + signature_key.size());
            line_.clear();
            if (!is_signature(given_signature_)) return fail("a malformed chunk-signature");
            size_ = 0;
            for (const char c : size_text_) {
                const int digit = c >= '0' && c <= '9'   ? c - '0'
                                  : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                  : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                                         : -1;
                if (digit < 0) return fail("a malformed chunk size");
                size_ = size_ * 16 + static_cast<std::size_t>(digit);
            }
            if (size_ > max_chunk_)
                return fail("a chunk over " + std::to_string(max_chunk_) + " bytes");
            data_.reserve(size_);
            state_ = size_ == 0 ? State::data_end : State::data;
            break;
        }
        case State::data: {
            const std::size_t take = std::min(in.size(), size_ - data_.size());
            data_.append(in.substr(0, take));
            in.remove_prefix(take);
            if (data_.size() == size_) state_ = State::data_end;
            break;
        }
        case State::data_end: {
            if (!end_of_line_read(in, line_, 2)) {
                if (line_.size() >= 2) return fail("a chunk's data is longer than its size");
                return true;
            }
            if (!line_.empty()) return fail("a chunk's data is longer than its size");
            if (!finish_chunk(out)) return false;
            if (state_ != State::done) state_ = State::size_line;
            break;
        }
        }
    }
    return state_ != State::failed;
}

} // namespace osf::secrets::sigv4
