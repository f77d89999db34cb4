#include "osf/spec.hpp"

#include "json_path.hpp"
#include "osf/spec_limits.hpp"
#include "osf/strict_json.hpp"
#include "spec_sections.hpp"

namespace osf {

bool Spec::template_is_image() const {
    return template_name.find_first_of("/:@") != std::string::npos;
}

SpecResult parse_spec(std::string_view json_text, SpecOptions options) {
    using namespace spec_detail;
    SpecResult result;
    if (json_text.size() > spec_limits::max_spec_bytes) {
        result.errors.push_back({"$", "the spec is " + std::to_string(json_text.size()) +
                                          " bytes; at most 1 MiB (1048576 bytes) is allowed"});
        return result;
    }
    // Objects nest at most 64 deep: a spec needs 3 levels, the limit only stops
    // absurd documents before they cost memory. A byte order mark is allowed:
    // editors write them into files.
    auto read = strict_json::read<nlohmann::json>(
        json_text, {.max_depth = 64, .allow_byte_order_mark = true, .record_numbers = true});
    for (auto& error : read.errors)
        result.errors.push_back({std::move(error.path), std::move(error.message)});
    if (!read.complete) return result;

    const nlohmann::json& document = read.document;
    if (!document.is_object()) {
        result.errors.push_back({"$", "the spec must be a JSON object, as "
                                      "{\"template\": \"node:24-alpine\"}; got " +
                                          describe_type(document)});
        return result;
    }

    const SpecCheck check{read.numbers, result.errors};
    check_known_fields(
        document, "$",
        {"$schema", "template", "cpu", "memory", "storage", "tmpSize", "env", "egress", "tcp",
         "secrets", "mcp", "user", "readOnlyRoot", "lifetime", "persistence", "cache", "mode",
         "labels"},
        "the spec's fields are template, cpu, memory, storage, tmpSize, env, egress, tcp, secrets, "
        "mcp, user, readOnlyRoot, lifetime, persistence, cache, mode and labels",
        check);
    if (document.contains("$schema") && !document["$schema"].is_string())
        check.fail("$['$schema']", "must be a string (the schema's URL, for editors); got " +
                                       describe_type(document["$schema"]));

    Spec spec;
    // Without a template the adapter's default applies (Spec::template_name empty).
    if (document.contains("template")) check_template(document["template"], check, spec);
    if (document.contains("cpu")) check_cpu(document["cpu"], check, spec);
    if (document.contains("memory")) check_memory(document["memory"], check, spec);
    if (document.contains("env")) check_env(document["env"], check, spec);
    if (document.contains("egress")) check_egress(document["egress"], check, spec);
    if (document.contains("tcp")) check_tcp(document["tcp"], check, spec);
    if (document.contains("mode")) spec.audit = check_mode(document["mode"], "$.mode", check);
    if (document.contains("secrets")) check_secrets(document["secrets"], check, spec);
    if (document.contains("mcp")) check_mcp(document["mcp"], check, spec);
    if (document.contains("storage")) check_storage(document["storage"], check, spec);
    if (document.contains("tmpSize")) check_tmp_size(document["tmpSize"], check, spec);
    if (document.contains("user")) check_user(document["user"], check, spec);
    if (document.contains("readOnlyRoot"))
        check_read_only_root(document["readOnlyRoot"], check, spec);
    if (document.contains("lifetime")) check_lifetime(document["lifetime"], check, spec);
    if (document.contains("persistence")) check_persistence(document["persistence"], check, spec);
    if (document.contains("cache")) check_cache(document["cache"], check, spec);
    if (document.contains("labels")) check_labels(document["labels"], check, spec);
    check_cross_section(document, check);
    if (options.bound_hosts_reachable) check_secret_hosts(document, check, spec);

    if (result.errors.empty()) result.spec = std::move(spec);
    return result;
}

} // namespace osf
