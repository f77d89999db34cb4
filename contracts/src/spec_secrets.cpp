#include "json_path.hpp"
#include "osf/spec_limits.hpp"
#include "secret_ref.hpp"
#include "spec_sections.hpp"

namespace osf::spec_detail {

void check_secrets(const nlohmann::json& value, const SpecCheck& check, Spec& spec) {
    const std::string path = "$.secrets";
    if (!check_collection(value, check, path, Shape::object,
                          "an object of NAME -> reference, as {\"NPM_TOKEN\": "
                          "\"ref:env/NPM_TOKEN\"}",
                          spec_limits::max_secrets, "secrets"))
        return;
    for (const auto& [name, ref] : value.items()) {
        const std::string at = member_path(path, name);
        bool good = true;
        if (!is_secret_name(name) || name.size() > spec_limits::max_secret_name_length) {
            check.fail(at, json_quoted(name) +
                               " is not a secret name: use upper-case letters, digits and '_', not "
                               "starting with a digit, at most " +
                               std::to_string(spec_limits::max_secret_name_length) +
                               " characters, as " + json_quoted(suggest_secret_name(name)));
            good = false;
        } else if (spec_limits::is_reserved_env_name(name)) {
            check.fail(at, "is a variable sandbox-kubernetes sets so that the sandbox reaches the "
                           "egress proxy; choose another name");
            good = false;
        }
        if (ref.is_object() && ref.contains("kind")) {
            if (good) check_aws_secret(ref, at, name, check, spec);
            continue;
        }
        if (!ref.is_string()) {
            check.fail(at, "must be a string \"ref:env/<NAME>\", \"ref:file/<name>\" or "
                           "\"ref:openbao/<path>\", or an AWS secret {\"kind\": \"aws\", ...}; "
                           "got " +
                               describe_type(ref));
            continue;
        }
        auto checked = check_secret_ref(ref.get_ref<const std::string&>());
        if (auto* problem = std::get_if<std::string>(&checked)) {
            check.fail(at, "the value " + *problem);
            continue;
        }
        if (good) spec.secrets.emplace(name, std::move(std::get<SecretRef>(checked)));
    }
}

} // namespace osf::spec_detail
