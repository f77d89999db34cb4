#include "secrets/aws_secret_loader.hpp"

#include "osf/aws_placeholder.hpp"
#include "secrets/secret_loader.hpp"
#include "secrets/value_rules.hpp"

namespace osf::secrets {

AwsLoaded load_aws_secrets(const osf::Spec& spec, const SourceEnvironment& env,
                           const HttpGetter& get) {
    AwsLoaded loaded;
    for (const auto& entry : spec.aws_secrets) {
        // Named references, not a structured binding: clang before 16 cannot capture one.
        const std::string& name = entry.first;
        const osf::AwsSecret& secret = entry.second;
        sigv4::AwsKeys keys;
        keys.name = name;
        keys.placeholder_key_id = osf::aws_placeholder_access_key_id(name);
        keys.placeholder_secret = osf::aws_placeholder_secret_access_key(name);
        keys.regions = secret.regions;
        keys.services = secret.services;
        keys.hosts = secret.hosts;
        const auto read = [&](const char* field, const osf::SecretRef& ref, std::string& into) {
            auto result = read_source(ref, env, get);
            if (result.ok())
                if (auto problem = value_problem(result.value)) result.error = *problem;
            if (!result.ok()) {
                loaded.error = "secret " + name + "." + field + " (" + reference_text(ref) +
                               "): " + result.error;
                return false;
            }
            into = std::move(result.value);
            return true;
        };
        if (!read("accessKeyId", secret.access_key_id, keys.key_id) ||
            !read("secretAccessKey", secret.secret_access_key, keys.secret))
            return {{}, loaded.error};
        if (secret.session_token) {
            if (!read("sessionToken", *secret.session_token, keys.token)) return {{}, loaded.error};
            keys.placeholder_token = osf::aws_placeholder_session_token(name);
        }
        loaded.keys.push_back(std::move(keys));
    }
    return loaded;
}

std::vector<EchoForm> aws_written_forms(const std::vector<sigv4::AwsKeys>& keys) {
    std::vector<EchoForm> forms;
    for (const auto& k : keys) {
        forms.push_back({k.key_id, k.placeholder_key_id, k.name});
        if (!k.token.empty()) {
            forms.push_back({k.token, k.placeholder_token, k.name});
            forms.push_back({percent_encode(k.token), percent_encode(k.placeholder_token), k.name});
        }
    }
    return forms;
}

} // namespace osf::secrets
