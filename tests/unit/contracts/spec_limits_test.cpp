// The spec's limits and the spec's JSON Schema agree: the reserved variables.
#include "osf/spec_limits.hpp"

#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

namespace {

nlohmann::json schema(const std::string& name) {
    std::ifstream in(std::string(OSF_SOURCE_DIR) + "/contracts/" + name);
    REQUIRE(in);
    return nlohmann::json::parse(in);
}

template <std::size_t N>
std::set<std::string> as_set(const std::array<std::string_view, N>& names) {
    return {names.begin(), names.end()};
}

std::set<std::string> strings(const nlohmann::json& array) {
    return array.get<std::set<std::string>>();
}

} // namespace

TEST_CASE("reserved variable names are the spec schema's", "[spec_limits]") {
    const auto spec = schema("sandbox-spec.schema.json");
    CHECK(as_set(osf::spec_limits::reserved_env_names) ==
          strings(spec["$defs"]["reservedEnvName"]["enum"]));
    CHECK(spec["properties"]["env"]["maxProperties"] == osf::spec_limits::max_env_vars);
    CHECK(spec["properties"]["egress"]["maxItems"] == osf::spec_limits::max_egress_entries);
    CHECK(spec["properties"]["secrets"]["maxProperties"] == osf::spec_limits::max_secrets);
    CHECK(spec["properties"]["mcp"]["maxItems"] == osf::spec_limits::max_mcp_servers);
    CHECK(spec["$defs"]["envValue"]["maxLength"] == osf::spec_limits::max_env_value_length);
    CHECK(spec["$defs"]["egressEntry"]["maxLength"] == osf::spec_limits::max_egress_entry_length);
    CHECK(spec["properties"]["template"]["maxLength"] == osf::spec_limits::max_template_length);
}
