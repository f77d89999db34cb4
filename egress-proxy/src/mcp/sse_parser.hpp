// Incremental text/event-stream parser following the WHATWG HTML "Server-sent
// events" interpretation rules: lines end in CRLF, LF or CR (a CR at the end
// of a chunk may be followed by an LF in the next one), a leading UTF-8 BOM is
// skipped, "data" lines are joined with "\n", a blank line ends an event.
// It yields every event block, even one without data, so a rewriter can keep
// its id and retry fields, and comment lines, so keep-alives can pass on.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace osf::mcp {

struct SseEvent {
    std::string type;                 // "event" field of this block (empty: "message")
    std::string data;                 // data lines joined by "\n"
    bool has_data = false;            // at least one data line (a client dispatches it)
    std::optional<std::string> id;    // "id" field, unless it held a NUL
    std::optional<std::string> retry; // "retry" field made of ASCII digits only
};

struct SseItem {
    enum class Kind {
        Event,     // a complete event block
        Comment,   // a ":" line, text after the colon in `comment`
        Oversized, // a block over the size limit was discarded
    };
    Kind kind = Kind::Event;
    SseEvent event;
    std::string comment;
};

class SseParser {
public:
    // Bounds the bytes one pending block may hold; a bigger block is skipped
    // up to its blank line and reported as Oversized.
    explicit SseParser(std::size_t max_event_bytes);

    // Parses a chunk and hands each item it completes to `sink`, in order. The
    // item is only valid during the call (its storage is reused: a stream of
    // small events allocates nothing per event).
    using ItemSink = std::function<void(const SseItem&)>;
    void feed(std::string_view chunk, const ItemSink& sink);
    // The same, collecting copies of the items.
    std::vector<SseItem> feed(std::string_view chunk);
    // True when a block or line was started but not finished (dropped at end of stream).
    bool has_partial_event() const;

private:
    void take_line(std::string_view line, const ItemSink& sink);
    void end_block(const ItemSink& sink);
    void reset_block();
    static void emit(SseItem::Kind kind, std::string_view comment, const ItemSink& sink);
    bool over_limit(std::size_t extra) const;

    std::size_t max_event_bytes_;
    bool at_stream_start_ = true;
    std::string bom_probe_;      // first bytes of the stream while a BOM is still possible
    bool skip_lf_ = false;       // last chunk ended in CR: an LF opening the next one belongs to it
    std::string line_;           // unfinished line
    bool skipping_ = false;      // discarding an oversized block up to its blank line
    bool line_started_ = false;  // bytes seen for the current line (also while skipping)
    SseItem block_;              // the event being read (kind Event), handed out when it ends
    bool block_started_ = false; // a field line was seen in the current block
    bool type_seen_ = false;     // an "event" field was seen in it (else its type is empty)
    std::size_t block_bytes_ = 0;
};

} // namespace osf::mcp
