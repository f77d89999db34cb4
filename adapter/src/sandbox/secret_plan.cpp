#include "sandbox/secret_plan.hpp"

#include <algorithm>

namespace osf::sandbox {

namespace {

bool is_set(const EnvLookup& getenv, const std::string& name) {
    const auto value = getenv(name);
    return value && !value->empty();
}

// A Secret key must match [-._a-zA-Z0-9]+; file names become keys.
bool valid_key_part(const std::string& text) {
    return !text.empty() && text != "." && text != ".." &&
           std::all_of(text.begin(), text.end(), [](char c) {
               return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '-' || c == '.' || c == '_';
           });
}

void add_unique(std::vector<std::string>& list, const std::string& item) {
    if (std::find(list.begin(), list.end(), item) == list.end()) list.push_back(item);
}

} // namespace

SecretPlanResult plan_secrets(const osf::Spec& spec, const Settings& settings,
                              const EnvLookup& getenv, const FileExists& file_exists) {
    SecretPlanResult result;
    // Every reference: the plain secrets', and each of an AWS secret's ("NAME.accessKeyId").
    std::vector<std::pair<std::string, const osf::SecretRef*>> refs;
    for (const auto& [name, ref] : spec.secrets)
        refs.emplace_back(name, &ref);
    for (const auto& [name, aws] : spec.aws_secrets) {
        refs.emplace_back(name + ".accessKeyId", &aws.access_key_id);
        refs.emplace_back(name + ".secretAccessKey", &aws.secret_access_key);
        if (aws.session_token) refs.emplace_back(name + ".sessionToken", &*aws.session_token);
    }
    for (const auto& [name, ref_pointer] : refs) {
        const osf::SecretRef& ref = *ref_pointer;
        const std::string where = "secret " + name + " (" + ref.text + "): ";
        switch (ref.kind) {
        case osf::SecretRef::Kind::Env: {
            const std::string variable = "OSF_SECRET_" + ref.target;
            if (!is_set(getenv, variable))
                result.errors.push_back(where + variable + " is not set");
            else
                add_unique(result.plan.env_names, ref.target);
            break;
        }
        case osf::SecretRef::Kind::File: {
            const std::string path = settings.secrets_dir + "/" + ref.target;
            if (!valid_key_part(ref.target))
                result.errors.push_back(
                    where + "the file name may hold only letters, digits, '-', '.' and '_'");
            else if (!file_exists(path))
                result.errors.push_back(where + "no file " + path + " (OSF_SECRETS_DIR)");
            else
                add_unique(result.plan.file_names, ref.target);
            break;
        }
        case osf::SecretRef::Kind::OpenBao: {
            if (!settings.openbao_addr || !is_set(getenv, "OSF_OPENBAO_TOKEN"))
                result.errors.push_back(where +
                                        "OSF_OPENBAO_ADDR and OSF_OPENBAO_TOKEN must be set");
            else
                result.plan.openbao = true;
            break;
        }
        }
    }
    std::sort(result.plan.env_names.begin(), result.plan.env_names.end());
    std::sort(result.plan.file_names.begin(), result.plan.file_names.end());
    return result;
}

} // namespace osf::sandbox
