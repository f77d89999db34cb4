// Fuzz target: the MCP filter on a server's text/event-stream (SseFilter and
// its parser). The first byte seeds the chunk sizes; the rest is the stream,
// fed in chunks of 1 to 64 bytes as a socket might deliver it. The output
// must not depend on the chunking, must be a stream the filter passes
// unchanged, and must show no undeclared tool to the client.
#include "fuzz_check.hpp"
#include "mcp/sse_parser.hpp"
#include "mcp_oracle.hpp"

#include <string>

namespace {

using osf::fuzz::mcp_policy;

struct Filtered {
    std::string out;
    std::size_t dropped = 0;
    std::size_t removed = 0;
};

// chunk_seed == 0: the whole stream in one chunk.
Filtered run_filter(std::string_view stream, std::uint8_t chunk_seed) {
    osf::mcp::SseFilter filter(mcp_policy());
    Filtered result;
    if (chunk_seed == 0) {
        result.out = filter.feed(stream);
    } else {
        std::uint32_t state = chunk_seed;
        while (!stream.empty()) {
            state = state * 1103515245u + 12345u; // a small LCG: sizes vary within one run
            const std::size_t n = std::min<std::size_t>(stream.size(), 1 + (state >> 16) % 64);
            result.out += filter.feed(stream.substr(0, n));
            stream.remove_prefix(n);
        }
    }
    result.out += filter.finish();
    result.dropped = filter.events_dropped();
    result.removed = filter.tools_removed();
    return result;
}

// Reads the output as a client would and checks every JSON-RPC message in it.
void check_client_view(const std::string& out) {
    osf::mcp::SseParser parser(out.size() + 1);
    for (const auto& item : parser.feed(out)) {
        if (item.kind != osf::mcp::SseItem::Kind::Event) continue;
        const auto& event = item.event;
        // The legacy transport's endpoint event carries a URL, not a message.
        if (event.type == "endpoint" || event.data.empty()) continue;
        const auto read = osf::mcp::read_strict_json(event.data);
        if (!read.value && osf::fuzz::reference_cannot_read_numbers(event.data)) continue;
        OSF_FUZZ_CHECK(read.value.has_value());
        OSF_FUZZ_CHECK(osf::fuzz::shows_only_declared_tools(*read.value));
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 1) return 0;
    const auto stream = osf::fuzz::as_text(data + 1, size - 1);
    const auto chunked = run_filter(stream, static_cast<std::uint8_t>(data[0] | 1));
    const auto whole = run_filter(stream, 0);
    OSF_FUZZ_CHECK(chunked.out == whole.out);
    OSF_FUZZ_CHECK(chunked.dropped == whole.dropped);
    OSF_FUZZ_CHECK(chunked.removed == whole.removed);

    check_client_view(whole.out);

    const auto again = run_filter(whole.out, 0);
    OSF_FUZZ_CHECK(again.out == whole.out);
    OSF_FUZZ_CHECK(again.dropped == 0);
    OSF_FUZZ_CHECK(again.removed == 0);
    return 0;
}
