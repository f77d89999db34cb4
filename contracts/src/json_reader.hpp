// Reads JSON text into a document while noticing what nlohmann's DOM parser
// would hide: duplicate object keys (the last one silently wins there) and
// numbers as written (a float's text is lost once it is a double).
#pragma once

#include "osf/spec.hpp"

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace osf::spec_detail {

struct JsonReadResult {
    nlohmann::json document;
    std::vector<SpecError> errors;              // syntax errors, duplicate keys, nesting
    std::map<std::string, std::string> numbers; // JSONPath -> number as written
    bool complete = false;                      // the whole text was read
};

// Objects nest at most this deep; a spec needs 3 levels, the limit only stops
// absurd documents before they cost memory.
inline constexpr std::size_t max_json_depth = 64;

JsonReadResult read_json(std::string_view text);

} // namespace osf::spec_detail
