// SseFilter: rewrites an MCP server's text/event-stream event by event.
#include "mcp/json_tape.hpp"
#include "mcp/jsonrpc.hpp"
#include "mcp/mcp_filter.hpp"
#include "mcp/session_registry.hpp"
#include "mcp/sse_parser.hpp"
#include "mcp/tools_pruner.hpp"

#include <algorithm>
#include <cassert>
#include <cstring>

namespace osf::mcp {

struct SseFilter::Impl {
    Impl(const ServerPolicy& p, std::shared_ptr<SessionRegistry> r)
        : policy(p), parser(p.max_message_bytes), registry(std::move(r)) {}

    ~Impl() {
        if (registry && session_id) registry->forget(*session_id);
    }

    bool expected_answer(std::string_view key) {
        auto it = std::find(expected_ids.begin(), expected_ids.end(), key);
        if (it != expected_ids.end()) {
            expected_ids.erase(it);
            return true;
        }
        return registry && session_id && registry->take_tools_list(*session_id, key);
    }

    // Legacy transport: answers to the pings that stood in for refused calls
    // become the refusals (legacy_transport.hpp). nullopt when nothing was replaced.
    std::optional<std::string> replace_refused_answers(std::string_view data) {
        if (!registry || !session_id || !registry->has_refusals(*session_id)) return std::nullopt;
        auto tape = JsonTape::read(data);
        if (!tape) return std::nullopt; // dropped by the pruner
        auto replacement = [&](std::uint32_t message) -> std::optional<std::string> {
            if (tape->at(message).kind != JsonTape::Kind::Object || tape->member(message, "method"))
                return std::nullopt;
            auto id = tape->member(message, "id");
            if (!id) return std::nullopt;
            return registry->take_refusal(*session_id, canonical_json(tape->span(*id)));
        };
        const auto root = JsonTape::root();
        if (tape->at(root).kind != JsonTape::Kind::Array) return replacement(root);
        std::string out = "[";
        bool any = false;
        for (auto element : tape->elements(root)) {
            if (out.size() > 1) out += ",";
            auto answer = replacement(element);
            any = any || answer.has_value();
            out += answer ? *answer : std::string(tape->span(element));
        }
        if (!any) return std::nullopt;
        return out + "]";
    }

    // Writes the event in the form every client reads alike: known fields
    // only, one "data:" line per line of data. The size is worked out first
    // and the bytes copied in place: appending field by field, with a capacity
    // check each, cost as much as reading the event.
    static void write_event(const SseEvent& event, std::string_view data, std::string& out) {
        constexpr std::string_view event_field = "event: ", id_field = "id: ",
                                   retry_field = "retry: ", data_field = "data: ";
        std::size_t lines = event.has_data ? 1 : 0; // data lines (memchr, not a byte loop)
        if (event.has_data) {
            for (auto at = data.find('\n'); at != std::string_view::npos;
                 at = data.find('\n', at + 1))
                ++lines;
        }
        // Each line of data becomes "data: " + line + LF; the LFs between lines are not copied.
        std::size_t size =
            1 + (lines ? lines * (data_field.size() + 1) + data.size() - (lines - 1) : 0);
        if (!event.type.empty()) size += event_field.size() + event.type.size() + 1;
        if (event.id) size += id_field.size() + event.id->size() + 1;
        if (event.retry) size += retry_field.size() + event.retry->size() + 1;
        const std::size_t at = out.size();
        out.resize(at + size);
        char* p = out.data() + at;
        auto put = [&p](std::string_view s) {
            std::memcpy(p, s.data(), s.size());
            p += s.size();
        };
        auto field = [&](std::string_view name, std::string_view value) {
            put(name);
            put(value);
            *p++ = '\n';
        };
        if (!event.type.empty()) field(event_field, event.type);
        if (event.id) field(id_field, *event.id);
        if (event.retry) field(retry_field, *event.retry);
        if (lines == 1) {
            field(data_field, data);
        } else if (lines > 1) {
            for (std::size_t start = 0;;) {
                const std::size_t end = data.find('\n', start);
                field(data_field, data.substr(start, end - start));
                if (end == std::string_view::npos) break;
                start = end + 1;
            }
        }
        *p++ = '\n';
        assert(p == out.data() + out.size());
    }

    void rewrite(const SseEvent& event, std::string& out) {
        if (!event.has_data) {
            // Not dispatched by a client; only its id and retry have an effect.
            if (event.id || event.retry) write_event(event, {}, out);
            return;
        }
        if (event.type == "endpoint") {
            // Legacy transport: data is the URL to POST to, not JSON-RPC; an MCP
            // endpoint the proxy must know before the client does.
            if (endpoint_hook && !endpoint_hook(event.data)) {
                ++events_dropped;
                return;
            }
            if (registry && !session_id) session_id = session_id_from_url(event.data);
            write_event(event, event.data, out);
            return;
        }
        if (event.data.empty()) {
            // A priming event (resumability); nothing to read.
            write_event(event, event.data, out);
            return;
        }
        auto replaced = replace_refused_answers(event.data);
        const std::string_view data = replaced ? std::string_view(*replaced) : event.data;
        auto removed = prune_tools_into(data, policy.tools, is_tools_list_answer, tape, pruned);
        if (!removed) {
            ++events_dropped;
            return;
        }
        tools_removed += *removed;
        write_event(event, *removed ? std::string_view(pruned) : data, out);
    }

    void process(std::string_view chunk, std::string& out) {
        // Rewritten events are about as long as the originals (pruned ones shorter).
        out.reserve(out.size() + chunk.size() + chunk.size() / 8 + 64);
        parser.feed(chunk, [this, &out](const SseItem& item) {
            switch (item.kind) {
            case SseItem::Kind::Comment:
                out.append(":").append(item.comment).append("\n");
                break;
            case SseItem::Kind::Oversized:
                ++events_dropped;
                break;
            case SseItem::Kind::Event:
                rewrite(item.event, out);
                break;
            }
        });
    }

    ServerPolicy policy;
    SseParser parser;
    std::shared_ptr<SessionRegistry> registry;
    std::optional<std::string> session_id;
    std::vector<std::string> expected_ids;
    EndpointHook endpoint_hook;
    // Made once (the Impl stays where it is: SseFilter holds it by pointer), not per event.
    const ToolsListIdMatcher is_tools_list_answer = [this](std::string_view id) {
        return expected_answer(id);
    };
    JsonTape tape;      // reused by every event (no allocation per event)
    std::string pruned; // an event's data after pruning, when tools were removed
    std::size_t events_dropped = 0;
    std::size_t tools_removed = 0;
    bool finished = false;
};

SseFilter::SseFilter(const ServerPolicy& policy) : SseFilter(policy, nullptr) {}

SseFilter::SseFilter(const ServerPolicy& policy, std::shared_ptr<SessionRegistry> registry)
    : impl_(std::make_unique<Impl>(policy, std::move(registry))) {}

SseFilter::~SseFilter() = default;
SseFilter::SseFilter(SseFilter&&) noexcept = default;

std::string SseFilter::feed(std::string_view chunk) {
    std::string out;
    feed_into(chunk, out);
    return out;
}

void SseFilter::feed_into(std::string_view chunk, std::string& out) {
    if (impl_->finished) return;
    impl_->process(chunk, out);
}

std::string SseFilter::finish() {
    if (impl_->finished) return {};
    impl_->finished = true;
    // An event not ended by a blank line is never dispatched by a client.
    if (impl_->parser.has_partial_event()) ++impl_->events_dropped;
    return {};
}

void SseFilter::on_endpoint(EndpointHook hook) {
    impl_->endpoint_hook = std::move(hook);
}

void SseFilter::expect_tools_list_ids(std::vector<std::string> ids) {
    impl_->expected_ids = std::move(ids);
}

std::size_t SseFilter::events_dropped() const {
    return impl_->events_dropped;
}
std::size_t SseFilter::tools_removed() const {
    return impl_->tools_removed;
}
std::optional<std::string> SseFilter::session_id() const {
    return impl_->session_id;
}

} // namespace osf::mcp
