// Fuzz target: the MCP filter on JSON bodies. The first byte picks the
// request's Content-Type, the second its Content-Encoding; the rest is the
// body, judged as a client request (inspect_request) and filtered as a server
// answer (filter_json_response).
#include "fuzz_check.hpp"
#include "mcp/json_tape.hpp"
#include "mcp/media_type.hpp"
#include "mcp_oracle.hpp"

#include <algorithm>
#include <array>
#include <string_view>

namespace {

using osf::fuzz::calls_only_declared_tools;
using osf::fuzz::mcp_policy;
using osf::fuzz::shows_only_declared_tools;
using osf::mcp::RequestVerdict;

constexpr std::array<std::string_view, 10> content_types = {
    "application/json",
    "application/json; charset=utf-8",
    "Application/JSON;charset=\"UTF-8\"",
    "application/json; charset=iso-8859-1",
    "",
    "text/plain",
    "text/event-stream",
    "application/json-seq",
    "application/jsonx",
    " application/json ; profile=x",
};
constexpr std::array<std::string_view, 5> content_encodings = {"", "identity", "gzip", "IDENTITY",
                                                               "br"};

void check_request(std::string_view content_type, std::string_view content_encoding,
                   std::string_view body) {
    const auto verdict =
        osf::mcp::inspect_request(mcp_policy(), content_type, content_encoding, body);
    bool undeclared_call = false;
    for (const auto& tool : verdict.tools_called)
        undeclared_call = undeclared_call || !mcp_policy().tools.contains(tool);

    switch (verdict.action) {
    case RequestVerdict::Action::Forward: {
        // A refused tools/call never reaches the server, and what does reach
        // it is JSON the reference reader reads the same way.
        OSF_FUZZ_CHECK(!undeclared_call);
        OSF_FUZZ_CHECK(osf::mcp::classify_media_type(content_type) == osf::mcp::MediaType::Json);
        OSF_FUZZ_CHECK(osf::mcp::is_identity_encoding(content_encoding));
        OSF_FUZZ_CHECK(body.size() <= mcp_policy().max_message_bytes);
        const auto read = osf::mcp::read_strict_json(body);
        if (!read.value && osf::fuzz::reference_cannot_read_numbers(body)) break;
        OSF_FUZZ_CHECK(read.value.has_value());
        OSF_FUZZ_CHECK(read.value->is_object() || read.value->is_array());
        OSF_FUZZ_CHECK(calls_only_declared_tools(*read.value));
        break;
    }
    case RequestVerdict::Action::ReplyJsonRpc:
        OSF_FUZZ_CHECK(verdict.refused_by == osf::RefusalReason::mcp_tool);
        OSF_FUZZ_CHECK(verdict.status == 200 || verdict.status == 202);
        if (verdict.status == 202) {
            OSF_FUZZ_CHECK(verdict.body.empty());
        } else if (!osf::mcp::read_strict_json(verdict.body).value &&
                   osf::fuzz::reference_cannot_read_numbers(body)) {
            // The answer carries each id as the client sent it (JSON-RPC), so an id
            // beyond the reference reader's range comes back: the proxy's own reader,
            // which keeps numbers as text, must still read the answer.
            OSF_FUZZ_CHECK(osf::mcp::JsonTape::read(verdict.body).has_value());
        } else {
            OSF_FUZZ_CHECK(osf::mcp::read_strict_json(verdict.body).value.has_value());
        }
        break;
    case RequestVerdict::Action::Refuse:
        OSF_FUZZ_CHECK(verdict.refused_by == osf::RefusalReason::mcp_unreadable);
        OSF_FUZZ_CHECK(verdict.status == 400 || verdict.status == 413 || verdict.status == 415);
        OSF_FUZZ_CHECK(osf::mcp::read_strict_json(verdict.body).value.has_value());
        break;
    }
}

void check_answer(std::string_view body) {
    const auto filtered = osf::mcp::filter_json_response(mcp_policy(), body);
    const auto read = osf::mcp::read_strict_json(body);
    // An answer is an object or a batch of them: a batch holding anything else
    // is unreadable (fail closed), as the filter documents.
    auto answers = [](const osf::mcp::Json& v) {
        return v.is_object() ||
               (v.is_array() && std::all_of(v.begin(), v.end(),
                                            [](const osf::mcp::Json& e) { return e.is_object(); }));
    };
    const bool readable =
        body.size() <= mcp_policy().max_message_bytes && read.value && answers(*read.value);
    // The filter's reader and the reference reader accept the same texts.
    if (!readable && filtered && osf::fuzz::reference_cannot_read_numbers(body)) return;
    OSF_FUZZ_CHECK(filtered.has_value() == readable);
    if (!filtered) return;

    if (filtered->tools_removed == 0) OSF_FUZZ_CHECK(filtered->body == body);
    const auto out = osf::mcp::read_strict_json(filtered->body);
    OSF_FUZZ_CHECK(out.value.has_value());
    OSF_FUZZ_CHECK(shows_only_declared_tools(*out.value));

    const auto again = osf::mcp::filter_json_response(mcp_policy(), filtered->body);
    OSF_FUZZ_CHECK(again.has_value());
    OSF_FUZZ_CHECK(again->tools_removed == 0);
    OSF_FUZZ_CHECK(again->body == filtered->body);

    // The stricter form (ids known to answer tools/list) passes less, never more.
    const auto verdict = osf::mcp::inspect_request(mcp_policy(), "application/json", "", body);
    const auto strict = osf::mcp::filter_json_response(mcp_policy(), body, verdict.tools_list_ids);
    if (strict) OSF_FUZZ_CHECK(strict->body == filtered->body);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 2) return 0;
    const auto content_type = content_types[data[0] % content_types.size()];
    const auto content_encoding = content_encodings[data[1] % content_encodings.size()];
    const auto body = osf::fuzz::as_text(data + 2, size - 2);
    check_request(content_type, content_encoding, body);
    check_answer(body);
    return 0;
}
