#include "json_path.hpp"
#include "quantity.hpp"
#include "spec_sections.hpp"

namespace osf::spec_detail {

void check_cpu(const nlohmann::json& value, const SpecCheck& check, Spec& spec) {
    const std::string path = "$.cpu";
    if (value.is_number()) {
        const auto written = check.numbers.find(path);
        const std::string text = written != check.numbers.end() ? written->second : value.dump();
        if (value.get<double>() < min_cpu_cores) {
            check.fail(path, text + " is not a positive number of cores: ask for at least 0.001 "
                                    "(one millicore), as 2 or 0.5");
            return;
        }
        spec.cpu = text; // as written: "2", "0.5", "1e1" are all Kubernetes quantities
        return;
    }
    if (!value.is_string()) {
        check.fail(path, "must be a number of cores or a quantity string, as 2, 0.5 or \"500m\"; "
                         "got " +
                             describe_type(value));
        return;
    }
    const auto& text = value.get_ref<const std::string&>();
    if (auto problem = cpu_quantity_problem(text)) {
        check.fail(path, json_quoted(text) + " " + *problem);
        return;
    }
    spec.cpu = text;
}

void check_memory(const nlohmann::json& value, const SpecCheck& check, Spec& spec) {
    const std::string path = "$.memory";
    if (!value.is_string()) {
        std::string message =
            "must be a quantity string, as \"4Gi\" or \"512Mi\"; got " + describe_type(value);
        if (value.is_number()) message += " (a bare number is ambiguous: write its unit)";
        check.fail(path, message);
        return;
    }
    const auto& text = value.get_ref<const std::string&>();
    if (auto problem = memory_quantity_problem(text)) {
        check.fail(path, json_quoted(text) + " " + *problem);
        return;
    }
    spec.memory = text;
}

} // namespace osf::spec_detail
