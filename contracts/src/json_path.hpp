// JSONPath spelling for error locations, and value descriptions for messages.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace osf::spec_detail {

// "$.env" + "CI" -> "$.env.CI"; a key that is not an identifier is quoted:
// "$.env['MY-VAR']".
std::string member_path(std::string_view base, std::string_view key);

// "$.egress" + 2 -> "$.egress[2]".
std::string index_path(std::string_view base, std::size_t index);

// "a string", "a number", "an object"... for "got ..." in messages.
std::string describe_type(const nlohmann::json& value);

// A string as a JSON literal for messages, shortened past `max` characters.
std::string json_quoted(std::string_view text, std::size_t max = 80);

// Length in Unicode code points, as JSON Schema's minLength/maxLength count.
std::size_t code_points(std::string_view utf8);

} // namespace osf::spec_detail
