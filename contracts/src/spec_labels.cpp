#include "json_path.hpp"
#include "osf/label_syntax.hpp"
#include "osf/spec_limits.hpp"
#include "spec_sections.hpp"

namespace osf::spec_detail {

void check_labels(const nlohmann::json& value, const SpecCheck& check, Spec& spec) {
    const std::string path = "$.labels";
    const auto shape = check_collection(value, check, path, Shape::object,
                                        "an object of label keys to values, as "
                                        "{\"run\": \"r-42\"}",
                                        spec_limits::max_labels, "labels");
    if (!shape) return;
    for (const auto& [key, item] : value.items()) {
        const std::string item_path = member_path(path, key);
        if (!item.is_string()) {
            check.fail(item_path, "must be a string; got " + describe_type(item));
            continue;
        }
        const auto& text = item.get_ref<const std::string&>();
        if (const auto problem = user_label_problem(key, text)) {
            check.fail(item_path, *problem);
            continue;
        }
        spec.labels[key] = text;
    }
}

} // namespace osf::spec_detail
