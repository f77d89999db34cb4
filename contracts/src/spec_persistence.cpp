#include "json_path.hpp"
#include "quantity.hpp"
#include "spec_sections.hpp"

namespace osf::spec_detail {

void check_persistence(const nlohmann::json& value, const SpecCheck& check, Spec& spec) {
    const std::string path = "$.persistence";
    if (!value.is_object()) {
        check.fail(path, "must be an object, as {\"size\": \"10Gi\"}; got " + describe_type(value));
        return;
    }
    check_known_fields(value, path, {"size", "storageClassName"},
                       "persistence's fields are size and storageClassName", check);
    Persistence persistence;
    bool ok = true;
    if (!value.contains("size")) {
        check.fail(path, "\"size\" is missing: the workspace claim's size, as \"10Gi\"");
        ok = false;
    } else if (const auto& size = value["size"]; !size.is_string()) {
        check.fail(path + ".size",
                   "must be a quantity string, as \"10Gi\"; got " + describe_type(size));
        ok = false;
    } else if (auto problem = memory_quantity_problem(size.get_ref<const std::string&>())) {
        check.fail(path + ".size",
                   json_quoted(size.get_ref<const std::string&>()) + " " + *problem);
        ok = false;
    } else {
        persistence.size = size.get<std::string>();
    }
    if (value.contains("storageClassName")) {
        const auto& name = value["storageClassName"];
        if (!name.is_string() || !is_dns_subdomain(name.get_ref<const std::string&>())) {
            check.fail(path + ".storageClassName",
                       (name.is_string() ? json_quoted(name.get_ref<const std::string&>()) + " is"
                                         : std::string("got ") + describe_type(name) + ", ") +
                           " not a StorageClass name (" + dns_subdomain_rule() + ")");
            ok = false;
        } else {
            persistence.storage_class = name.get<std::string>();
        }
    }
    if (ok) spec.persistence = persistence;
}

} // namespace osf::spec_detail
