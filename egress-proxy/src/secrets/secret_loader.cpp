#include "secrets/secret_loader.hpp"

#include "secrets/env_source.hpp"
#include "secrets/file_source.hpp"
#include "secrets/value_rules.hpp"

namespace osf::secrets {

std::string reference_text(const osf::SecretRef& ref) {
    if (!ref.text.empty()) return ref.text;
    switch (ref.kind) {
    case osf::SecretRef::Kind::Env:
        return "ref:env/" + ref.target;
    case osf::SecretRef::Kind::File:
        return "ref:file/" + ref.target;
    case osf::SecretRef::Kind::OpenBao:
        return "ref:openbao/" + ref.target;
    }
    return ref.target;
}

SourceResult read_source(const osf::SecretRef& ref, const SourceEnvironment& env,
                         const HttpGetter& get) {
    switch (ref.kind) {
    case osf::SecretRef::Kind::Env:
        return read_env_secret(ref.target, env);
    case osf::SecretRef::Kind::File:
        return read_file_secret(ref.target, env.secrets_dir);
    case osf::SecretRef::Kind::OpenBao:
        return read_openbao_secret(ref.target, env, get);
    }
    return SourceResult::failure("unknown kind of reference");
}

SecretStore::Loaded load_secrets(const osf::Spec& spec, const SourceEnvironment& env,
                                 const HttpGetter& get) {
    std::vector<Secret> secrets;
    for (const auto& entry : spec.secrets) {
        // Named references, not a structured binding: clang before 16 cannot capture one.
        const std::string& name = entry.first;
        const osf::SecretRef& ref = entry.second;
        const auto fail = [&](const std::string& why) {
            return SecretStore::Loaded{{},
                                       "secret " + name + " (" + reference_text(ref) + "): " + why};
        };
        SourceResult result = read_source(ref, env, get);
        if (!result.ok()) return fail(result.error);
        if (auto problem = value_problem(result.value)) return fail(*problem);
        Secret secret{name, osf::secret_placeholder(name), std::move(result.value), {}, {}};
        if (const auto bound = spec.secret_bindings.find(name); bound != spec.secret_bindings.end())
            secret.binding = bound->second;
        if (ref.kind == osf::SecretRef::Kind::File)
            secret.file =
                (env.secrets_dir.empty() ? std::string(".") : env.secrets_dir) + "/" + ref.target;
        secrets.push_back(std::move(secret));
    }
    return {SecretStore(std::move(secrets)), {}};
}

} // namespace osf::secrets
