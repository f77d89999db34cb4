#include "json_path.hpp"
#include "osf/duration.hpp"
#include "spec_sections.hpp"

namespace osf::spec_detail {

void check_lifetime(const nlohmann::json& value, const SpecCheck& check, Spec& spec) {
    const std::string path = "$.lifetime";
    if (!value.is_string()) {
        std::string message =
            "must be a duration string, as \"90m\" or \"8h\"; got " + describe_type(value);
        if (value.is_number()) message += " (a bare number is ambiguous: write its unit)";
        check.fail(path, message);
        return;
    }
    const auto& text = value.get_ref<const std::string&>();
    const DurationResult parsed = parse_duration(text);
    if (const auto* problem = std::get_if<std::string>(&parsed)) {
        check.fail(path, json_quoted(text) + " " + *problem);
        return;
    }
    spec.lifetime = std::get<std::chrono::seconds>(parsed);
}

} // namespace osf::spec_detail
