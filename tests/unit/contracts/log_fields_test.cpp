// The C++ constants and the egress log's JSON Schema spell the same names: log
// field names, outcomes, refusal reasons.
#include "osf/log_fields.hpp"
#include "schema_files.hpp"

#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

using schema_files::as_set;
using schema_files::schema;
using schema_files::strings;

namespace {

template <class Enum, std::size_t N>
std::set<std::string> names_of(const std::array<Enum, N>& values) {
    std::set<std::string> names;
    for (const auto value : values)
        names.emplace(osf::to_string(value));
    return names;
}

} // namespace

TEST_CASE("log_field names are the egress log schema's properties", "[log_fields]") {
    const auto log = schema("egress-log.schema.json");
    std::set<std::string> properties;
    for (const auto& [name, _] : log["properties"].items())
        properties.insert(name);
    auto fields = as_set(osf::log_field::all);
    const auto evidence = as_set(osf::log_evidence_field::all);
    fields.insert(evidence.begin(), evidence.end());
    const auto policy = as_set(osf::policy_field::all);
    fields.insert(policy.begin(), policy.end());
    CHECK(fields == properties);
    CHECK(log["additionalProperties"] == false);
    for (const auto& required : log["required"])
        CHECK(properties.count(required.get<std::string>()) == 1);
}

TEST_CASE("outcome and refusedBy values are the schema's enums", "[log_fields]") {
    const auto log = schema("egress-log.schema.json");
    CHECK(as_set(osf::log_kind::all) == strings(log["properties"]["kind"]["enum"]));
    CHECK(names_of(osf::all_outcomes) == strings(log["properties"]["outcome"]["enum"]));
    CHECK(names_of(osf::all_refusal_reasons) == strings(log["properties"]["refusedBy"]["enum"]));
}

TEST_CASE("error kinds fit the schema's error pattern and are named in its description",
          "[log_fields]") {
    const auto log = schema("egress-log.schema.json");
    const auto& error = log["properties"]["error"];
    const std::regex pattern(error["pattern"].get<std::string>());
    const auto description = error["description"].get<std::string>();
    const auto names = names_of(osf::all_error_kinds);
    CHECK(names.size() == osf::all_error_kinds.size()); // no two kinds share a name
    for (const auto& name : names) {
        CAPTURE(name);
        CHECK(std::regex_match(name, pattern));
        CHECK(name.size() <= error["maxLength"].get<std::size_t>());
        CHECK(description.find(name) != std::string::npos);
    }
}
