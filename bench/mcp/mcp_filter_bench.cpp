// Micro-benchmark of the MCP filter alone (no sockets): throughput of
//   - a tools/list answer of 1,000 tools as application/json (filter_json_response),
//   - the same answer as one text/event-stream event (SseFilter, 16 KiB chunks),
//   - a stream of 10,000 small SSE events (SseFilter, 16 KiB chunks),
// each next to a plain copy of the same bytes in the same chunks (the baseline
// the proxy's non-MCP path does at least). Prints one JSON object per case.
//
// usage: mcp_filter_bench [min-seconds-per-case (default 1)]
#include "mcp/mcp_filter.hpp"

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <string>
#include <string_view>

namespace {

constexpr std::size_t kChunk = 16 * 1024;

osf::mcp::ServerPolicy bench_policy() {
    osf::mcp::ServerPolicy policy;
    policy.name = "bench";
    // Every tenth tool is declared: most of the list is removed.
    for (int i = 0; i < 1000; i += 10)
        policy.tools.insert("tool_" + std::to_string(i));
    policy.max_message_bytes = 16 * 1024 * 1024;
    return policy;
}

std::string tools_list_answer(int tools) {
    std::string body = R"({"jsonrpc":"2.0","id":1,"result":{"tools":[)";
    for (int i = 0; i < tools; ++i) {
        if (i) body += ",";
        body +=
            R"({"name":"tool_)" + std::to_string(i) + R"(","description":"Does thing number )" +
            std::to_string(i) +
            R"( for the benchmark","inputSchema":{"type":"object","properties":{"query":{"type":"string","description":"what to look for"},"limit":{"type":"integer","minimum":1,"maximum":100}},"required":["query"]},"annotations":{"readOnlyHint":true}})";
    }
    body += R"(],"nextCursor":"next-page"}})";
    return body;
}

std::string small_events(int events) {
    std::string stream;
    for (int i = 0; i < events; ++i) {
        stream += "event: message\nid: " + std::to_string(i) +
                  "\ndata: "
                  "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/"
                  "progress\",\"params\":{\"progressToken\":\"t\",\"progress\":" +
                  std::to_string(i) + ",\"total\":10000}}\n\n";
    }
    return stream;
}

// Runs `once` until `min_seconds` of this process's CPU time have passed;
// returns bytes per CPU second (CPU time, not wall time: the machine is shared).
double throughput(std::size_t bytes, double min_seconds, const std::function<std::size_t()>& once) {
    std::size_t runs = 0, sink = 0;
    const std::clock_t start = std::clock();
    double elapsed = 0;
    do {
        sink += once();
        ++runs;
        elapsed = static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC;
    } while (elapsed < min_seconds);
    if (sink == 0) std::fputs("", stderr); // keeps the work observable
    return static_cast<double>(bytes) * static_cast<double>(runs) / elapsed;
}

std::size_t copy_in_chunks(std::string_view input) {
    std::string out;
    std::size_t total = 0;
    for (std::size_t at = 0; at < input.size(); at += kChunk) {
        out.assign(input.substr(at, kChunk));
        total += out.size();
    }
    return total;
}

std::size_t sse_in_chunks(const osf::mcp::ServerPolicy& policy, std::string_view input) {
    osf::mcp::SseFilter filter(policy);
    std::size_t total = 0;
    for (std::size_t at = 0; at < input.size(); at += kChunk)
        total += filter.feed(input.substr(at, kChunk)).size();
    total += filter.finish().size();
    if (filter.events_dropped() != 0) std::abort(); // the bench input must be readable
    return total;
}

void report(const char* name, std::size_t bytes, double filtered, double copied) {
    std::printf(
        "{\"case\":\"%s\",\"bytes\":%zu,\"filterMBps\":%.1f,\"copyMBps\":%.1f,\"slowdown\":%.2f}\n",
        name, bytes, filtered / 1e6, copied / 1e6, copied / filtered);
}

} // namespace

int main(int argc, char** argv) {
    const double min_seconds = argc > 1 ? std::atof(argv[1]) : 1.0;
    const std::string only = argc > 2 ? argv[2] : ""; // one case by name (for profiling)
    const auto wanted = [&only](const char* name) { return only.empty() || only == name; };
    const auto policy = bench_policy();

    const std::string json = tools_list_answer(1000);
    if (!osf::mcp::filter_json_response(policy, json)) return 1;
    if (wanted("tools-list-1000-json"))
        report(
            "tools-list-1000-json", json.size(),
            throughput(json.size(), min_seconds,
                       [&] { return osf::mcp::filter_json_response(policy, json)->body.size(); }),
            throughput(json.size(), min_seconds, [&] { return copy_in_chunks(json); }));

    const std::string sse = "event: message\ndata: " + json + "\n\n";
    if (wanted("tools-list-1000-sse"))
        report("tools-list-1000-sse", sse.size(),
               throughput(sse.size(), min_seconds, [&] { return sse_in_chunks(policy, sse); }),
               throughput(sse.size(), min_seconds, [&] { return copy_in_chunks(sse); }));

    const std::string events = small_events(10000);
    if (wanted("sse-10000-small-events"))
        report(
            "sse-10000-small-events", events.size(),
            throughput(events.size(), min_seconds, [&] { return sse_in_chunks(policy, events); }),
            throughput(events.size(), min_seconds, [&] { return copy_in_chunks(events); }));
    return 0;
}
