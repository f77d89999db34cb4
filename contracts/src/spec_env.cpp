#include "json_path.hpp"
#include "osf/spec_limits.hpp"
#include "secret_ref.hpp"
#include "spec_sections.hpp"

namespace osf::spec_detail {

void check_env(const nlohmann::json& value, const SpecCheck& check, Spec& spec) {
    const std::string path = "$.env";
    if (!check_collection(value, check, path, Shape::object,
                          "an object of NAME -> value, as {\"CI\": \"1\"}",
                          spec_limits::max_env_vars, "variables"))
        return;
    for (const auto& [name, text] : value.items()) {
        const std::string at = member_path(path, name);
        bool good = true;
        if (!is_env_name(name) || code_points(name) > spec_limits::max_env_name_length) {
            check.fail(at, json_quoted(name) +
                               " is not a variable name: use letters, digits and '_', not starting "
                               "with a digit, at most " +
                               std::to_string(spec_limits::max_env_name_length) + " characters");
            good = false;
        } else if (spec_limits::is_reserved_env_name(name)) {
            check.fail(at, "is set by sandbox-kubernetes so that the sandbox reaches the egress "
                           "proxy and trusts its CA; the spec cannot set it");
            good = false;
        }
        // Values are never quoted back: people paste tokens into env.
        if (!text.is_string()) {
            check.fail(at,
                       "must be a string; got " + describe_type(text) +
                           (text.is_number() || text.is_boolean() ? " (put it in quotes)" : ""));
            continue;
        }
        const auto& string = text.get_ref<const std::string&>();
        if (string.find('\0') != std::string::npos) {
            check.fail(at, "holds a NUL character, which no environment variable can");
            continue;
        }
        if (code_points(string) > spec_limits::max_env_value_length) {
            check.fail(at, "is longer than 32768 characters");
            continue;
        }
        if (good) spec.env[name] = string;
    }
}

} // namespace osf::spec_detail
