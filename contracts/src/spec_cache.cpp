#include "json_path.hpp"
#include "spec_sections.hpp"

namespace osf::spec_detail {

void check_cache(const nlohmann::json& value, const SpecCheck& check, Spec& spec) {
    const std::string path = "$.cache";
    if (!value.is_object()) {
        check.fail(path, "must be an object, as {\"claimName\": \"package-cache\"}; got " +
                             describe_type(value));
        return;
    }
    check_known_fields(value, path, {"claimName"}, "cache's only field is claimName", check);
    if (!value.contains("claimName")) {
        check.fail(path, "\"claimName\" is missing: the ReadWriteMany PersistentVolumeClaim to "
                         "mount at /cache");
        return;
    }
    const auto& name = value["claimName"];
    if (!name.is_string() || !is_dns_subdomain(name.get_ref<const std::string&>())) {
        check.fail(path + ".claimName",
                   (name.is_string() ? json_quoted(name.get_ref<const std::string&>()) + " is"
                                     : "got " + describe_type(name) + ",") +
                       " not a PersistentVolumeClaim name (" + dns_subdomain_rule() + ")");
        return;
    }
    spec.cache = PackageCache{name.get<std::string>()};
}

} // namespace osf::spec_detail
