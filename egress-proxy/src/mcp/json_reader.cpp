#include "mcp/json_reader.hpp"

#include "osf/strict_json.hpp"

namespace osf::mcp {

JsonReadResult read_strict_json(std::string_view text) {
    auto read = strict_json::read<Json>(text, {.max_depth = kMaxJsonDepth});
    if (!read.errors.empty()) return {std::nullopt, std::move(read.errors.front().message)};
    if (!read.complete) return {std::nullopt, "not JSON"};
    return {std::move(read.document), {}};
}

std::string write_json(const Json& value) {
    return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

} // namespace osf::mcp
