#include "json_path.hpp"
#include "spec_sections.hpp"

namespace osf::spec_detail {

// The JSON Schema checks each section alone; these rules span two.
void check_cross_section(const nlohmann::json& document, const SpecCheck& check) {
    check_aws_cross_section(document, check);
    const auto env = document.find("env");
    const auto secrets = document.find("secrets");
    if (env == document.end() || secrets == document.end()) return;
    if (!env->is_object() || !secrets->is_object()) return;
    // The sandbox's variable NAME holds the placeholder of secret NAME.
    for (const auto& [name, value] : env->items()) {
        if (secrets->contains(name))
            check.fail(member_path("$.env", name),
                       "is also a secret: the sandbox's " + name +
                           " holds the secret's placeholder, so remove it from env");
    }
}

} // namespace osf::spec_detail
