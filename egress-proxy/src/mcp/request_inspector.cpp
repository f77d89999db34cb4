// inspect_request: what a client's POST body to an MCP endpoint may do.
#include "mcp/json_reader.hpp"
#include "mcp/json_tape.hpp"
#include "mcp/jsonrpc.hpp"
#include "mcp/mcp_filter.hpp"
#include "mcp/media_type.hpp"
#include "mcp/routing_headers.hpp"

#include <algorithm>
#include <optional>
#include <string>

namespace osf::mcp {

namespace {

using Kind = JsonTape::Kind;

RequestVerdict unreadable(int status, int code, std::string_view message, std::string reason) {
    RequestVerdict verdict;
    verdict.action = RequestVerdict::Action::Refuse;
    verdict.status = status;
    verdict.body = error_answer("null", code, message);
    verdict.refused_by = RefusalReason::mcp_unreadable;
    verdict.reason = std::move(reason);
    return verdict;
}

// One JSON-RPC message of the body, as the filter sees it.
struct Message {
    std::optional<std::string> method;  // set for requests and notifications
    std::optional<std::string> id_json; // the id as sent; unset for notifications
    std::uint32_t entry = 0;
};

// Why a tools/call may not pass: its error answer, and whether the tool is
// declared (its arguments refused) or not.
struct CallRefusal {
    std::string answer;
    RefusalReason reason = RefusalReason::mcp_tool;
    std::string rule; // tool_argument_not_allowed: the argument rule
};

// nullopt when the call's tool is declared and its arguments pass its rules.
std::optional<CallRefusal> refusal_of_call(const JsonTape& tape, const Message& call,
                                           const ServerPolicy& policy,
                                           std::vector<std::string>& tools_called) {
    const std::string id = call.id_json.value_or("null");
    std::optional<std::uint32_t> params = tape.member(call.entry, "params");
    std::optional<std::uint32_t> name;
    if (params) name = tape.member(*params, "name");
    if (!name || tape.at(*name).kind != Kind::String) {
        return CallRefusal{
            error_answer(id, kInvalidParams, "Invalid params: tool name must be a string"),
            RefusalReason::mcp_tool,
            {}};
    }
    std::string tool = tape.string_value(*name);
    tools_called.push_back(tool);
    if (!policy.tools.contains(tool))
        return CallRefusal{
            error_answer(id, kInvalidParams, "Unknown tool: " + tool), RefusalReason::mcp_tool, {}};
    const auto rules = policy.tool_arguments.find(tool);
    if (rules == policy.tool_arguments.end()) return std::nullopt;
    auto refusal = judge_arguments(rules->second, tape, tape.member(*params, "arguments"));
    if (!refusal) return std::nullopt;
    return CallRefusal{error_answer(id, kInvalidParams, refusal->message),
                       RefusalReason::tool_argument_not_allowed, std::move(refusal->rule)};
}

} // namespace

RequestVerdict inspect_request(const ServerPolicy& policy, std::string_view content_type,
                               std::string_view content_encoding, std::string_view body) {
    return inspect_request(policy, content_type, content_encoding, body, RoutingHeaders{});
}

RequestVerdict inspect_request(const ServerPolicy& policy, std::string_view content_type,
                               std::string_view content_encoding, std::string_view body,
                               const RoutingHeaders& routing) {
    if (!is_identity_encoding(content_encoding)) {
        return unreadable(415, kParseError, "Parse error: compressed request body",
                          "content-encoding is not identity");
    }
    if (classify_media_type(content_type) != MediaType::Json) {
        return unreadable(415, kParseError, "Parse error: content type must be application/json",
                          "content-type is not application/json");
    }
    if (body.size() > policy.max_message_bytes) {
        return unreadable(413, kInvalidRequest, "Invalid Request: message too large",
                          "body over the MCP message size limit");
    }
    std::string error;
    auto tape = JsonTape::read(body, &error);
    if (!tape)
        return unreadable(400, kParseError, "Parse error", "body is not strict JSON: " + error);
    const auto root = JsonTape::root();
    const bool batch = tape->at(root).kind == Kind::Array;
    std::vector<std::uint32_t> entries;
    if (batch) {
        std::size_t count = 0;
        for (std::uint32_t e = root + 1; e < tape->at(root).next; e = tape->at(e).next)
            ++count;
        if (count > kMaxBatchMessages)
            return unreadable(413, kInvalidRequest, "Invalid Request: batch too large",
                              "a batch of more than " + std::to_string(kMaxBatchMessages) +
                                  " messages");
        entries = tape->elements(root);
    } else if (tape->at(root).kind == Kind::Object) {
        entries.push_back(root);
    }
    if (entries.empty()) {
        return unreadable(400, kInvalidRequest, "Invalid Request",
                          "not a JSON-RPC message or non-empty batch");
    }

    // Every message must be an object with, if any, a string method.
    std::vector<Message> messages;
    for (auto entry : entries) {
        if (tape->at(entry).kind != Kind::Object) {
            return unreadable(400, kInvalidRequest, "Invalid Request",
                              "batch element is not an object");
        }
        Message message;
        message.entry = entry;
        if (auto method = tape->member(entry, "method")) {
            if (tape->at(*method).kind != Kind::String) {
                return unreadable(400, kInvalidRequest, "Invalid Request",
                                  "method is not a string");
            }
            message.method = tape->string_value(*method);
        }
        if (auto id = tape->member(entry, "id")) message.id_json = std::string(tape->span(*id));
        messages.push_back(std::move(message));
    }

    RequestVerdict verdict;
    // For the log: each method once, the first kMaxLoggedMethods of them (a batch
    // of many distinct methods costs no more than that per message).
    constexpr std::size_t kMaxLoggedMethods = 16;
    for (const auto& message : messages) {
        if (!message.method) continue;
        if (std::find(verdict.methods.begin(), verdict.methods.end(), *message.method) !=
            verdict.methods.end())
            continue;
        if (verdict.methods.size() == kMaxLoggedMethods) break;
        verdict.methods.push_back(*message.method);
    }

    // Headers a server or gateway may route on say what the body says, or nothing passes.
    if (routing.any()) {
        // Headers describe one message: a second is enough to show a batch.
        std::vector<RoutedMessage> routed;
        for (const auto& message : messages) {
            if (routed.size() == 2) break;
            RoutedMessage r{message.method, {}, {}};
            if (auto params = tape->member(message.entry, "params")) {
                if (auto name = tape->member(*params, "name");
                    name && tape->at(*name).kind == Kind::String)
                    r.name = tape->string_value(*name);
                if (auto uri = tape->member(*params, "uri");
                    uri && tape->at(*uri).kind == Kind::String)
                    r.uri = tape->string_value(*uri);
            }
            routed.push_back(std::move(r));
        }
        if (auto why = routing_mismatch(routing, routed); !why.empty()) {
            const std::string id =
                messages.size() == 1 ? messages.front().id_json.value_or("null") : "null";
            // A header naming a tool the spec does not declare is a call to it.
            std::vector<std::string_view> named(routing.name.begin(), routing.name.end());
            named.insert(named.end(), routing.tool_name.begin(), routing.tool_name.end());
            const bool about_call =
                !routing.tool_name.empty() ||
                std::any_of(routing.method.begin(), routing.method.end(),
                            [](std::string_view m) { return m == "tools/call"; }) ||
                std::any_of(routed.begin(), routed.end(),
                            [](const RoutedMessage& r) { return r.method == "tools/call"; });
            const bool undeclared =
                about_call && std::any_of(named.begin(), named.end(), [&](std::string_view v) {
                    const auto decoded = decode_routing_value(v);
                    if (decoded) verdict.tools_called.push_back(*decoded);
                    return !decoded || !policy.tools.contains(*decoded);
                });
            verdict.action = RequestVerdict::Action::Refuse;
            verdict.status = 400;
            verdict.body = error_answer(id, kHeaderMismatch, "Header mismatch: " + why);
            verdict.refused_by =
                undeclared ? RefusalReason::mcp_tool : RefusalReason::mcp_unreadable;
            verdict.reason = std::move(why);
            return verdict;
        }
    }

    std::vector<std::optional<CallRefusal>> refusals(messages.size());
    bool any_refused = false;
    for (std::size_t i = 0; i < messages.size(); ++i) {
        const Message& message = messages[i];
        // Exact, case-sensitive, after unescaping: as JSON-RPC servers compare.
        if (message.method == "tools/call") {
            refusals[i] = refusal_of_call(*tape, message, policy, verdict.tools_called);
            any_refused = any_refused || refusals[i].has_value();
        } else if (message.method == "tools/list" && message.id_json) {
            verdict.tools_list_ids.push_back(canonical_json(*message.id_json));
        }
    }

    if (!any_refused) {
        verdict.action = RequestVerdict::Action::Forward;
        verdict.status = 0;
        return verdict;
    }

    // Nothing reaches the server: answer every request ourselves. Notifications
    // (no id) and client responses (no method) get no answer, as JSON-RPC requires.
    // An undeclared tool outweighs refused arguments: it is the wider overreach.
    verdict.action = RequestVerdict::Action::ReplyJsonRpc;
    const bool undeclared = std::any_of(refusals.begin(), refusals.end(), [](const auto& r) {
        return r && r->reason == RefusalReason::mcp_tool;
    });
    verdict.refused_by =
        undeclared ? RefusalReason::mcp_tool : RefusalReason::tool_argument_not_allowed;
    if (undeclared) {
        verdict.reason =
            batch ? "batch holds a call to an undeclared tool" : "call to an undeclared tool";
    } else {
        verdict.reason = batch ? "batch holds a tool call whose arguments its rules refuse"
                               : "tool call whose arguments its rules refuse";
        for (const auto& r : refusals)
            if (r) {
                verdict.rule = r->rule;
                break;
            }
    }
    const std::string_view batch_refused =
        undeclared ? "Batch refused: it contains a call to an unknown tool"
                   : "Batch refused: it contains a tool call whose arguments are not allowed";
    std::vector<std::string> answers;
    for (std::size_t i = 0; i < messages.size(); ++i) {
        const Message& message = messages[i];
        if (!message.method || !message.id_json) continue;
        answers.push_back(refusals[i]
                              ? std::move(refusals[i]->answer)
                              : error_answer(*message.id_json, kInvalidRequest, batch_refused));
    }
    if (answers.empty()) {
        // Only notifications: HTTP 202 with no body, like a server accepting them.
        verdict.status = 202;
        return verdict;
    }
    verdict.status = 200;
    if (!batch) {
        verdict.body = std::move(answers.front());
        return verdict;
    }
    verdict.body = "[";
    for (std::size_t i = 0; i < answers.size(); ++i) {
        if (i) verdict.body += ",";
        verdict.body += answers[i];
    }
    verdict.body += "]";
    return verdict;
}

} // namespace osf::mcp
