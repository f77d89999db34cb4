#include "osf/spec.hpp"

#include "json_path.hpp"
#include "osf/spec_limits.hpp"
#include "osf/strict_json.hpp"
#include "spec_sections.hpp"

#include <algorithm>
#include <array>

namespace osf {

bool Spec::template_is_image() const {
    return template_name.find_first_of("/:@") != std::string::npos;
}

namespace spec_detail {
namespace {

using SectionCheck = void (*)(const nlohmann::json& value, const SpecCheck& check, Spec& spec);

void check_schema_url(const nlohmann::json& value, const SpecCheck& check, Spec&) {
    if (!value.is_string())
        check.fail("$['$schema']",
                   "must be a string (the schema's URL, for editors); got " + describe_type(value));
}

void check_spec_mode(const nlohmann::json& value, const SpecCheck& check, Spec& spec) {
    spec.audit = check_mode(value, "$.mode", check);
}

// One top-level field of the spec.
struct SpecField {
    std::string_view name;
    std::string_view kind; // the JSON it holds (the schema says it exactly)
    SectionCheck check;    // validates it and copies what is valid into the Spec
    std::string_view into; // where it goes in the Spec
    // Its place in the list an unknown field's message gives (0: not listed).
    int listed;
};

// Every top-level field, in the order they are checked, which is the order
// their errors are reported in; `egress` comes before `secrets`, whose AWS
// entries read it.
constexpr std::array kSpecFields{
    SpecField{"$schema", "string", check_schema_url, "(nowhere: for editors)", 0},
    // Without a template the adapter's default applies (Spec::template_name empty).
    SpecField{"template", "image reference or template name", check_template, "template_name", 1},
    SpecField{"cpu", "number or quantity string", check_cpu, "cpu", 2},
    SpecField{"memory", "quantity string", check_memory, "memory", 3},
    SpecField{"env", "object", check_env, "env", 6},
    SpecField{"egress", "array", check_egress, "egress", 7},
    SpecField{"tcp", "array", check_tcp, "tcp", 8},
    SpecField{"mode", "\"enforce\" or \"audit\"", check_spec_mode, "audit", 16},
    SpecField{"secrets", "object", check_secrets, "secrets", 9},
    SpecField{"mcp", "array", check_mcp, "mcp", 10},
    SpecField{"storage", "quantity string", check_storage, "storage", 4},
    SpecField{"tmpSize", "quantity string", check_tmp_size, "tmp_size", 5},
    SpecField{"user", "object", check_user, "user", 11},
    SpecField{"readOnlyRoot", "boolean", check_read_only_root, "read_only_root", 12},
    SpecField{"lifetime", "duration string", check_lifetime, "lifetime", 13},
    SpecField{"persistence", "object", check_persistence, "persistence", 14},
    SpecField{"cache", "object", check_cache, "cache", 15},
    SpecField{"labels", "object", check_labels, "labels", 17},
};

std::vector<std::string> field_names() {
    std::vector<std::string> names;
    for (const auto& field : kSpecFields)
        names.emplace_back(field.name);
    return names;
}

// "the spec's fields are template, cpu, ... and labels", in their listed order.
std::string fields_sentence() {
    std::vector<const SpecField*> listed;
    for (const auto& field : kSpecFields)
        if (field.listed > 0) listed.push_back(&field);
    std::ranges::sort(listed, {}, &SpecField::listed);
    std::string sentence = "the spec's fields are ";
    for (std::size_t i = 0; i < listed.size(); ++i) {
        if (i > 0) sentence += i + 1 == listed.size() ? " and " : ", ";
        sentence += listed[i]->name;
    }
    return sentence;
}

} // namespace
} // namespace spec_detail

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
    static const std::vector<std::string> names = field_names();
    static const std::string sentence = fields_sentence();
    check_known_fields(document, "$", names, sentence, check);

    Spec spec;
    for (const auto& field : kSpecFields)
        if (document.contains(field.name)) field.check(document[field.name], check, spec);
    check_cross_section(document, check);
    if (options.bound_hosts_reachable) check_secret_hosts(document, check, spec);

    if (result.errors.empty()) result.spec = std::move(spec);
    return result;
}

} // namespace osf
