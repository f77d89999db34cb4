// inspect_request: what a client's POST body to an MCP endpoint may do.
#include "mcp/json_reader.hpp"
#include "mcp/jsonrpc.hpp"
#include "mcp/mcp_filter.hpp"
#include "mcp/media_type.hpp"

namespace osf::mcp {

namespace {

constexpr const char* kRefusedByTool = "mcp-tool";
constexpr const char* kRefusedByUnreadable = "mcp-unreadable";

RequestVerdict unreadable(int status, int code, std::string message, std::string reason) {
    RequestVerdict verdict;
    verdict.action = RequestVerdict::Action::Refuse;
    verdict.status = status;
    verdict.body = write_json(make_error(nullptr, code, std::move(message)));
    verdict.refused_by = kRefusedByUnreadable;
    verdict.reason = std::move(reason);
    return verdict;
}

// Why a tools/call may not pass, or nullopt when its tool is declared.
std::optional<Json> refusal_of_call(const Json& call, const ServerPolicy& policy,
                                    std::vector<std::string>& tools_called) {
    auto params = call.find("params");
    const Json* name = nullptr;
    if (params != call.end() && params->is_object()) {
        auto it = params->find("name");
        if (it != params->end()) name = &*it;
    }
    Json id = call.contains("id") ? call.at("id") : Json(nullptr);
    if (name == nullptr || !name->is_string()) {
        return make_error(id, kInvalidParams, "Invalid params: tool name must be a string");
    }
    const auto& tool = name->get_ref<const std::string&>();
    tools_called.push_back(tool);
    if (policy.tools.contains(tool)) return std::nullopt;
    return make_error(id, kInvalidParams, "Unknown tool: " + tool);
}

} // namespace

RequestVerdict inspect_request(const ServerPolicy& policy, std::string_view content_type,
                               std::string_view content_encoding, std::string_view body) {
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
    JsonReadResult read = read_strict_json(body);
    if (!read.value) {
        return unreadable(400, kParseError, "Parse error",
                          "body is not strict JSON: " + read.error);
    }
    const Json& document = *read.value;
    const bool batch = document.is_array();
    if (!document.is_object() && !(batch && !document.empty())) {
        return unreadable(400, kInvalidRequest, "Invalid Request",
                          "not a JSON-RPC message or non-empty batch");
    }

    RequestVerdict verdict;
    std::vector<const Json*> messages;
    if (batch) {
        for (const auto& element : document)
            messages.push_back(&element);
    } else {
        messages.push_back(&document);
    }

    // One pass: every message must be an object with, if any, a string method.
    // Refusals are collected in message order for the batch answer.
    std::vector<std::optional<Json>> refusals(messages.size());
    bool any_refused = false;
    for (std::size_t i = 0; i < messages.size(); ++i) {
        const Json& message = *messages[i];
        if (!message.is_object()) {
            return unreadable(400, kInvalidRequest, "Invalid Request",
                              "batch element is not an object");
        }
        if (!has_method(message)) continue; // a response to a server request
        if (!message.at("method").is_string()) {
            return unreadable(400, kInvalidRequest, "Invalid Request", "method is not a string");
        }
        if (is_method(message, "tools/call")) {
            refusals[i] = refusal_of_call(message, policy, verdict.tools_called);
            any_refused = any_refused || refusals[i].has_value();
        } else if (is_method(message, "tools/list") && expects_answer(message)) {
            verdict.tools_list_ids.push_back(write_json(message.at("id")));
        }
    }

    if (!any_refused) {
        verdict.action = RequestVerdict::Action::Forward;
        verdict.status = 0;
        return verdict;
    }

    // Nothing reaches the server: answer every request ourselves. Notifications
    // (no id) get no answer, as JSON-RPC requires.
    verdict.action = RequestVerdict::Action::ReplyJsonRpc;
    verdict.refused_by = kRefusedByTool;
    verdict.reason =
        batch ? "batch holds a call to an undeclared tool" : "call to an undeclared tool";
    Json answers = Json::array();
    for (std::size_t i = 0; i < messages.size(); ++i) {
        const Json& message = *messages[i];
        if (!expects_answer(message) || !has_method(message)) continue;
        if (refusals[i]) {
            answers.push_back(std::move(*refusals[i]));
        } else {
            answers.push_back(make_error(message.at("id"), kInvalidRequest,
                                         "Batch refused: it contains a call to an unknown tool"));
        }
    }
    if (answers.empty()) {
        // Only notifications: HTTP 202 with no body, like a server accepting them.
        verdict.status = 202;
        verdict.body.clear();
    } else {
        verdict.status = 200;
        verdict.body = write_json(batch ? answers : answers.at(0));
    }
    return verdict;
}

} // namespace osf::mcp
