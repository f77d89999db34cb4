// Reading Content-Type and Content-Encoding header values, so MCP bodies are
// only parsed when they are what the proxy can read: uncompressed JSON (or an
// event stream) in UTF-8.
#pragma once

#include <string>
#include <string_view>

namespace osf::mcp {

enum class MediaType {
    Json,        // application/json
    EventStream, // text/event-stream
    Other,       // anything else, including a missing or malformed value
};

// A Content-Type value as read: its essence ("type/subtype", lower case, no
// parameters) and whether its parameters are ones the proxy reads as the
// sender meant them (each `name=value`, a charset only UTF-8).
struct ParsedMediaType {
    std::string essence;
    MediaType type = MediaType::Other; // by the essence alone
    bool readable_parameters = true;
};
ParsedMediaType parse_media_type(std::string_view content_type);

// Classifies a Content-Type value (parse_media_type's type, Other when its
// parameters are not readable). Type and subtype compare case-insensitively;
// parameters are allowed except a charset other than UTF-8 (the proxy reads
// bytes as UTF-8 and must read them as the server will).
MediaType classify_media_type(std::string_view content_type);

// True for an absent Content-Encoding or "identity": a body the proxy can read as is.
bool is_identity_encoding(std::string_view content_encoding);

} // namespace osf::mcp
