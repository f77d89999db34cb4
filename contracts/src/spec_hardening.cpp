// `user`, `readOnlyRoot`, `storage` and `tmpSize`: how the sandbox's workload is confined
// and how much disk and /tmp it may use. Only the adapters read them.
#include "json_path.hpp"
#include "osf/spec_limits.hpp"
#include "quantity.hpp"
#include "spec_sections.hpp"

#include <optional>

namespace osf::spec_detail {

namespace {

// A whole number in [min, max_user_id], or nothing (the failure is recorded).
std::optional<std::int64_t> user_id(const nlohmann::json& object, const std::string& field,
                                    std::int64_t min, const SpecCheck& check) {
    const std::string path = member_path("$.user", field);
    if (!object.contains(field)) {
        check.fail("$.user", "\"" + field + "\" is missing: give both uid and gid, as " +
                                 "{\"uid\": 1000, \"gid\": 1000}");
        return std::nullopt;
    }
    const nlohmann::json& value = object[field];
    const auto written = check.numbers.find(path);
    const std::string text = written != check.numbers.end() ? written->second : value.dump();
    if (!value.is_number_integer()) {
        check.fail(path, "must be a whole number, as 1000; got " +
                             (value.is_number() ? text : describe_type(value)));
        return std::nullopt;
    }
    const bool negative = value.is_number_unsigned() ? false : value.get<std::int64_t>() < 0;
    const bool too_large = value.is_number_unsigned()
                               ? value.get<std::uint64_t>() > spec_limits::max_user_id
                               : value.get<std::int64_t>() > spec_limits::max_user_id;
    if (negative || too_large || value.get<std::int64_t>() < min) {
        std::string message =
            text + " is out of range: Kubernetes accepts " + std::to_string(min) + " to 2147483647";
        if (field == "uid" && !negative && !too_large)
            message += " (uid 0 is root: leave out \"user\" to run as root)";
        check.fail(path, message);
        return std::nullopt;
    }
    return value.get<std::int64_t>();
}

} // namespace

namespace {

// A size as a quantity string ("10Gi", "500Mi"), or nullopt after its error.
std::optional<std::string> size_quantity(const nlohmann::json& value, const std::string& path,
                                         const SpecCheck& check) {
    if (!value.is_string()) {
        std::string message =
            "must be a quantity string, as \"10Gi\" or \"500Mi\"; got " + describe_type(value);
        if (value.is_number()) message += " (a bare number is ambiguous: write its unit)";
        check.fail(path, message);
        return std::nullopt;
    }
    const auto& text = value.get_ref<const std::string&>();
    if (auto problem = storage_quantity_problem(text)) {
        check.fail(path, json_quoted(text) + " " + *problem);
        return std::nullopt;
    }
    return text;
}

} // namespace

void check_storage(const nlohmann::json& value, const SpecCheck& check, Spec& spec) {
    if (auto size = size_quantity(value, "$.storage", check)) spec.storage = *size;
}

void check_tmp_size(const nlohmann::json& value, const SpecCheck& check, Spec& spec) {
    if (auto size = size_quantity(value, "$.tmpSize", check)) spec.tmp_size = *size;
}

void check_user(const nlohmann::json& value, const SpecCheck& check, Spec& spec) {
    if (!value.is_object()) {
        check.fail("$.user", "must be an object, as {\"uid\": 1000, \"gid\": 1000}; got " +
                                 describe_type(value));
        return;
    }
    check_known_fields(value, "$.user", {"uid", "gid"}, "user's fields are uid and gid", check);
    const auto uid = user_id(value, "uid", 1, check);
    const auto gid = user_id(value, "gid", 0, check);
    if (uid && gid) spec.user = SandboxUser{*uid, *gid};
}

void check_read_only_root(const nlohmann::json& value, const SpecCheck& check, Spec& spec) {
    if (!value.is_boolean()) {
        check.fail("$.readOnlyRoot", "must be true or false; got " + describe_type(value));
        return;
    }
    spec.read_only_root = value.get<bool>();
}

} // namespace osf::spec_detail
