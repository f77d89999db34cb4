#include "mcp/legacy_transport.hpp"

#include "mcp/json_tape.hpp"
#include "mcp/jsonrpc.hpp"

#include <vector>

namespace osf::mcp {

std::optional<std::string> legacy_substitute_body(const RequestVerdict& verdict,
                                                  SessionRegistry& registry,
                                                  std::string_view session_id) {
    if (verdict.action != RequestVerdict::Action::ReplyJsonRpc || verdict.status != 200)
        return std::nullopt;
    auto tape = JsonTape::read(verdict.body);
    if (!tape) return std::nullopt;
    const auto root = JsonTape::root();
    const bool batch = tape->at(root).kind == JsonTape::Kind::Array;
    std::vector<std::uint32_t> answers;
    if (batch) {
        answers = tape->elements(root);
    } else {
        answers.push_back(root);
    }
    // An id the registry cannot hold: the proxy answers the POST itself instead.
    for (auto answer : answers) {
        auto id = tape->member(answer, "id");
        if (!id || !SessionRegistry::recordable(session_id, canonical_json(tape->span(*id))))
            return std::nullopt;
    }
    std::vector<std::string> pings;
    for (auto answer : answers) {
        auto id = tape->member(answer, "id");
        registry.expect_refusal(session_id, canonical_json(tape->span(*id)),
                                std::string(tape->span(answer)));
        pings.push_back(R"({"jsonrpc":"2.0","id":)" + std::string(tape->span(*id)) +
                        R"(,"method":"ping"})");
    }
    if (!batch) return pings.front();
    std::string body = "[";
    for (std::size_t i = 0; i < pings.size(); ++i) {
        if (i) body += ",";
        body += pings[i];
    }
    return body + "]";
}

} // namespace osf::mcp
