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
#include <variant>
#include <vector>

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

// The body read as JSON-RPC messages: a single object or a non-empty batch
// of objects, each with, if any, a string method.
struct ParsedBody {
    JsonTape tape;
    bool batch = false;
    std::vector<Message> messages;
};

// The body's messages, or the verdict on a body the filter cannot read.
std::variant<ParsedBody, RequestVerdict> read_messages(const ServerPolicy& policy,
                                                       std::string_view content_type,
                                                       std::string_view content_encoding,
                                                       std::string_view body) {
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
    return ParsedBody{std::move(*tape), batch, std::move(messages)};
}

// For the log: each method once, the first kMaxLoggedMethods of them (a batch
// of many distinct methods costs no more than that per message).
std::vector<std::string> logged_methods(const std::vector<Message>& messages) {
    constexpr std::size_t kMaxLoggedMethods = 16;
    std::vector<std::string> methods;
    for (const auto& message : messages) {
        if (!message.method) continue;
        if (std::find(methods.begin(), methods.end(), *message.method) != methods.end()) continue;
        if (methods.size() == kMaxLoggedMethods) break;
        methods.push_back(*message.method);
    }
    return methods;
}

// Headers a server or gateway may route on say what the body says, or nothing
// passes: true when `verdict` now refuses the request for it.
bool refused_for_routing(const ParsedBody& parsed, const RoutingHeaders& routing,
                         const ServerPolicy& policy, RequestVerdict& verdict) {
    const auto& tape = parsed.tape;
    const auto& messages = parsed.messages;
    // Headers describe one message: a second is enough to show a batch.
    std::vector<RoutedMessage> routed;
    for (const auto& message : messages) {
        if (routed.size() == 2) break;
        RoutedMessage r{message.method, {}, {}};
        if (auto params = tape.member(message.entry, "params")) {
            if (auto name = tape.member(*params, "name");
                name && tape.at(*name).kind == Kind::String)
                r.name = tape.string_value(*name);
            if (auto uri = tape.member(*params, "uri"); uri && tape.at(*uri).kind == Kind::String)
                r.uri = tape.string_value(*uri);
        }
        routed.push_back(std::move(r));
    }
    auto why = routing_mismatch(routing, routed);
    if (why.empty()) return false;
    const std::string id =
        messages.size() == 1 ? messages.front().id_json.value_or("null") : "null";
    // A header naming a tool the spec does not declare is a call to it.
    std::vector<std::string_view> named(routing.name.begin(), routing.name.end());
    named.insert(named.end(), routing.tool_name.begin(), routing.tool_name.end());
    const bool about_call = !routing.tool_name.empty() ||
                            std::any_of(routing.method.begin(), routing.method.end(),
                                        [](std::string_view m) { return m == "tools/call"; }) ||
                            std::any_of(routed.begin(), routed.end(), [](const RoutedMessage& r) {
                                return r.method == "tools/call";
                            });
    const bool undeclared =
        about_call && std::any_of(named.begin(), named.end(), [&](std::string_view v) {
            const auto decoded = decode_routing_value(v);
            if (decoded) verdict.tools_called.push_back(*decoded);
            return !decoded || !policy.tools.contains(*decoded);
        });
    verdict.action = RequestVerdict::Action::Refuse;
    verdict.status = 400;
    verdict.body = error_answer(id, kHeaderMismatch, "Header mismatch: " + why);
    verdict.refused_by = undeclared ? RefusalReason::mcp_tool : RefusalReason::mcp_unreadable;
    verdict.reason = std::move(why);
    return true;
}

// Nothing reaches the server: `verdict` answers every request itself.
// Notifications (no id) and client responses (no method) get no answer, as
// JSON-RPC requires. An undeclared tool outweighs refused arguments: it is
// the wider overreach.
void answer_refused(const ParsedBody& parsed, std::vector<std::optional<CallRefusal>>& refusals,
                    RequestVerdict& verdict) {
    const bool batch = parsed.batch;
    const auto& messages = parsed.messages;
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
        return;
    }
    verdict.status = 200;
    if (!batch) {
        verdict.body = std::move(answers.front());
        return;
    }
    verdict.body = "[";
    for (std::size_t i = 0; i < answers.size(); ++i) {
        if (i) verdict.body += ",";
        verdict.body += answers[i];
    }
    verdict.body += "]";
}

} // namespace

RequestVerdict inspect_request(const ServerPolicy& policy, std::string_view content_type,
                               std::string_view content_encoding, std::string_view body) {
    return inspect_request(policy, content_type, content_encoding, body, RoutingHeaders{});
}

RequestVerdict inspect_request(const ServerPolicy& policy, std::string_view content_type,
                               std::string_view content_encoding, std::string_view body,
                               const RoutingHeaders& routing) {
    auto read = read_messages(policy, content_type, content_encoding, body);
    if (auto* refused = std::get_if<RequestVerdict>(&read)) return std::move(*refused);
    const ParsedBody& parsed = std::get<ParsedBody>(read);
    const auto& messages = parsed.messages;

    RequestVerdict verdict;
    verdict.methods = logged_methods(messages);
    if (routing.any() && refused_for_routing(parsed, routing, policy, verdict)) return verdict;

    std::vector<std::optional<CallRefusal>> refusals(messages.size());
    bool any_refused = false;
    for (std::size_t i = 0; i < messages.size(); ++i) {
        const Message& message = messages[i];
        // Exact, case-sensitive, after unescaping: as JSON-RPC servers compare.
        if (message.method == "tools/call") {
            refusals[i] = refusal_of_call(parsed.tape, message, policy, verdict.tools_called);
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
    answer_refused(parsed, refusals, verdict);
    return verdict;
}

} // namespace osf::mcp
