#include "mcp/sse_parser.hpp"

#include <algorithm>
#include <cstring>

namespace osf::mcp {

namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";

bool all_ascii_digits(std::string_view s) {
    return !s.empty() &&
           std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The first CR or LF at or after `from` (npos when none). Two memchr scans:
// string_view::find_first_of tests every byte against the set one by one. The
// CR scan is skipped when the chunk holds none (most streams end lines in LF).
std::size_t find_line_end(std::string_view s, std::size_t from, bool has_cr) {
    const char* begin = s.data() + from;
    const std::size_t size = s.size() - from;
    const void* lf = std::memchr(begin, '\n', size);
    const std::size_t lf_at =
        lf ? static_cast<std::size_t>(static_cast<const char*>(lf) - begin) : size;
    const void* cr = has_cr ? std::memchr(begin, '\r', lf_at) : nullptr;
    const std::size_t at =
        cr ? static_cast<std::size_t>(static_cast<const char*>(cr) - begin) : lf_at;
    return at == size ? std::string_view::npos : from + at;
}

// Whether `line` is the field `name` (the name then a colon). The length is a
// constant, so the comparison is a load or two, not a call.
template <std::size_t N> bool named(std::string_view line, const char (&name)[N]) {
    return line.size() > N - 1 && line[N - 1] == ':' && std::memcmp(line.data(), name, N - 1) == 0;
}

} // namespace

SseParser::SseParser(std::size_t max_event_bytes) : max_event_bytes_(max_event_bytes) {
    block_.kind = SseItem::Kind::Event;
}

bool SseParser::has_partial_event() const {
    return block_started_ || line_started_ || skipping_ || !bom_probe_.empty();
}

bool SseParser::over_limit(std::size_t extra) const {
    return block_bytes_ + line_.size() + extra > max_event_bytes_;
}

void SseParser::reset_block() {
    // Cleared in place: the strings keep their capacity for the next event.
    type_seen_ = false; // the type string is kept: the next event most often has the same
    block_.event.data.clear();
    block_.event.has_data = false;
    block_.event.id.reset();
    block_.event.retry.reset();
    block_started_ = false;
    block_bytes_ = 0;
}

void SseParser::emit(SseItem::Kind kind, std::string_view comment, const ItemSink& sink) {
    SseItem item;
    item.kind = kind;
    item.comment = comment;
    sink(item);
}

std::vector<SseItem> SseParser::feed(std::string_view chunk) {
    std::vector<SseItem> out;
    feed(chunk, [&out](const SseItem& item) { out.push_back(item); });
    return out;
}

void SseParser::feed(std::string_view chunk, const ItemSink& sink) {
    std::string joined; // only used while the stream's first bytes may be a BOM
    if (at_stream_start_) {
        joined = bom_probe_ + std::string(chunk);
        if (joined.size() < kBom.size() && kBom.starts_with(joined)) {
            bom_probe_ = std::move(joined);
            return;
        }
        at_stream_start_ = false;
        bom_probe_.clear();
        chunk = joined;
        if (chunk.starts_with(kBom)) chunk.remove_prefix(kBom.size());
    }
    if (chunk.empty()) return;

    std::size_t pos = 0;
    if (skip_lf_) {
        if (chunk[0] == '\n') pos = 1;
        skip_lf_ = false;
    }
    const bool has_cr = chunk.find('\r', pos) != std::string_view::npos;
    while (pos < chunk.size()) {
        std::size_t end = find_line_end(chunk, pos, has_cr);
        std::string_view piece = chunk.substr(pos, end == std::string_view::npos ? end : end - pos);
        if (end == std::string_view::npos) {
            // Unfinished line: keep it (bounded) for the next chunk.
            if (!skipping_ && over_limit(piece.size())) {
                reset_block();
                line_.clear();
                skipping_ = true;
                emit(SseItem::Kind::Oversized, {}, sink);
            }
            if (!skipping_) line_.append(piece);
            line_started_ = line_started_ || !piece.empty();
            break;
        }
        if (line_.empty()) {
            take_line(piece, sink);
        } else {
            line_.append(piece);
            std::string line = std::move(line_);
            line_.clear();
            take_line(line, sink);
        }
        if (chunk[end] == '\r') {
            if (end + 1 < chunk.size()) {
                if (chunk[end + 1] == '\n') ++end;
            } else {
                skip_lf_ = true;
            }
        }
        pos = end + 1;
    }
}

void SseParser::take_line(std::string_view line, const ItemSink& sink) {
    const bool blank = line.empty() && !line_started_;
    line_started_ = false;
    if (skipping_) {
        if (blank) skipping_ = false;
        return;
    }
    if (blank) {
        end_block(sink);
        return;
    }
    // Comment lines count against the limit too: feed() bounds an unfinished
    // line, whatever it is, so the outcome must not depend on where chunks end.
    if (block_bytes_ + line.size() > max_event_bytes_) {
        reset_block();
        skipping_ = true;
        emit(SseItem::Kind::Oversized, {}, sink);
        return;
    }
    if (line.front() == ':') {
        emit(SseItem::Kind::Comment, line.substr(1), sink);
        return;
    }
    // The field name is what comes before the first colon. The names a
    // client acts on are tried first, so most lines are not searched.
    enum class Field { data, event, id, retry, other };
    Field field = Field::other;
    std::size_t colon = 0;
    if (named(line, "data")) {
        field = Field::data, colon = 4;
    } else if (named(line, "event")) {
        field = Field::event, colon = 5;
    } else if (named(line, "id")) {
        field = Field::id, colon = 2;
    } else if (named(line, "retry")) {
        field = Field::retry, colon = 5;
    } else {
        colon = line.find(':'); // npos: the whole line is the name, the value is empty
        const std::string_view name = line.substr(0, colon);
        field = name == "data"    ? Field::data
                : name == "event" ? Field::event
                : name == "id"    ? Field::id
                : name == "retry" ? Field::retry
                                  : Field::other;
    }
    std::string_view value;
    if (colon != std::string_view::npos) {
        value = line.substr(colon + 1);
        if (value.starts_with(' ')) value.remove_prefix(1);
    }
    block_started_ = true;
    block_bytes_ += line.size();
    switch (field) {
    case Field::event:
        type_seen_ = true;
        if (block_.event.type != value) block_.event.type.assign(value);
        break;
    case Field::data:
        if (block_.event.has_data) block_.event.data.push_back('\n');
        block_.event.data.append(value);
        block_.event.has_data = true;
        break;
    case Field::id:
        if (value.find('\0') == std::string_view::npos) {
            if (block_.event.id)
                block_.event.id->assign(value);
            else
                block_.event.id.emplace(value);
        }
        break;
    case Field::retry:
        if (all_ascii_digits(value)) block_.event.retry = std::string(value);
        break;
    case Field::other:
        break;
    }
    // Other field names are ignored by clients, so they are not kept.
}

void SseParser::end_block(const ItemSink& sink) {
    if (!type_seen_) block_.event.type.clear();
    if (block_started_) sink(block_);
    reset_block();
}

} // namespace osf::mcp
