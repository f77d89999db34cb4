// The spec's limits and the spec's JSON Schema agree: the reserved variables.
#include "osf/spec_limits.hpp"
#include "schema_files.hpp"

#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

using schema_files::as_set;
using schema_files::schema;
using schema_files::strings;

TEST_CASE("reserved variable names are the spec schema's", "[spec_limits]") {
    const auto spec = schema("sandbox-spec.schema.json");
    CHECK(as_set(osf::spec_limits::reserved_env_names) ==
          strings(spec["$defs"]["reservedEnvName"]["enum"]));
    CHECK(spec["properties"]["env"]["maxProperties"] == osf::spec_limits::max_env_vars);
    CHECK(spec["properties"]["egress"]["maxItems"] == osf::spec_limits::max_egress_entries);
    CHECK(spec["properties"]["secrets"]["maxProperties"] == osf::spec_limits::max_secrets);
    CHECK(spec["properties"]["labels"]["maxProperties"] == osf::spec_limits::max_labels);
    CHECK(spec["properties"]["mcp"]["maxItems"] == osf::spec_limits::max_mcp_servers);
    CHECK(spec["$defs"]["envValue"]["maxLength"] == osf::spec_limits::max_env_value_length);
    CHECK(spec["$defs"]["egressEntry"]["maxLength"] == osf::spec_limits::max_egress_entry_length);
    // A tcp entry is an egress entry whose port is required: the same limits.
    CHECK(spec["properties"]["tcp"]["maxItems"] == osf::spec_limits::max_egress_entries);
    CHECK(spec["$defs"]["tcpEntry"]["maxLength"] == osf::spec_limits::max_egress_entry_length);
    CHECK(spec["properties"]["template"]["maxLength"] == osf::spec_limits::max_template_length);
}
