// Resolving every secret of a spec from its source, once, at start.
#pragma once

#include "osf/spec.hpp"
#include "secrets/openbao_source.hpp"
#include "secrets/secret_store.hpp"
#include "secrets/source_result.hpp"

namespace osf::secrets {

// SecretStore::load with the OpenBao HTTP client given (tests pass a fake).
// Secrets are read in name order; the first problem stops loading and is
// reported as "secret <NAME> (<reference>): <what is wrong>".
SecretStore::Loaded load_secrets(const osf::Spec& spec, const SourceEnvironment& env,
                                 const HttpGetter& get);

// One reference's value, from its source (value rules not applied).
SourceResult read_source(const osf::SecretRef& ref, const SourceEnvironment& env,
                         const HttpGetter& get);

// "ref:env/X" etc., as written in the spec or rebuilt from its parts.
std::string reference_text(const osf::SecretRef& ref);

} // namespace osf::secrets
