// What sandbox-local refuses in a spec (exit 2, naming the field) and what it
// bounds /workspace to.
#include "local/launch/spec_support.hpp"

#include <catch2/catch.hpp>

using namespace osf::local;

namespace {

osf::Spec spec_of(const char* json) {
    return *osf::parse_spec(json).spec;
}

const HostAbilities root_with_cgroups{true, {"cpu", "memory", "pids"}, ""};
const HostAbilities user_without_cgroups{false, {}, "cgroup v1 here"};

} // namespace

TEST_CASE("spec support: what runs as root with cgroups") {
    for (const char* json :
         {R"({"template":"host"})", R"({"template":"host","cpu":"1","memory":"1Gi"})",
          R"({"template":"host","storage":"1Gi"})",
          R"({"template":"host","persistence":{"size":"2Gi"}})",
          R"({"template":"host","cache":{"claimName":"npm"}})"})
        CHECK_FALSE(refused_spec_fields(spec_of(json), root_with_cgroups));
}

TEST_CASE("spec support: each refusal names its field") {
    const struct {
        const char* json;
        HostAbilities host;
        const char* field;
    } cases[] = {
        {R"({"template":"host","persistence":{"size":"1Gi","storageClassName":"fast"}})",
         root_with_cgroups, "persistence.storageClassName:"},
        {R"({"template":"host","storage":"1Gi"})", user_without_cgroups, "storage:"},
        {R"({"template":"host","persistence":{"size":"1Gi"}})", user_without_cgroups,
         "persistence.size:"},
        {R"({"template":"host","cpu":"1"})", user_without_cgroups, "cpu:"},
        {R"({"template":"host","memory":"1Gi"})", user_without_cgroups, "memory:"},
        {R"({"template":"host","memory":"1Gi"})", HostAbilities{true, {"cpu", "pids"}, "no memory"},
         "memory:"},
    };
    for (const auto& c : cases) {
        const auto refusal = refused_spec_fields(spec_of(c.json), c.host);
        REQUIRE(refusal);
        CHECK(refusal->starts_with(c.field));
    }
    // An ordinary user without cgroups, a spec without limits: runs.
    CHECK_FALSE(refused_spec_fields(spec_of(R"({"template":"host"})"), user_without_cgroups));
}

TEST_CASE("spec support: /workspace is bounded by persistence.size, else storage") {
    CHECK(workspace_bound(spec_of(R"({"template":"host"})")) == 0);
    CHECK(workspace_bound(spec_of(R"({"template":"host","storage":"64Mi"})")) == 64LL << 20);
    CHECK(workspace_bound(
              spec_of(R"({"template":"host","storage":"64Mi","persistence":{"size":"1Gi"}})")) ==
          1LL << 30);
}
