// Resolving the spec's AWS secrets (kind "aws") at start: each reference read
// from its source like any secret, the placeholders computed from the name.
#pragma once

#include "osf/spec.hpp"
#include "secrets/openbao_source.hpp"
#include "secrets/secret_store.hpp"
#include "secrets/sigv4_resigning.hpp"

#include <string>
#include <vector>

namespace osf::secrets {

struct AwsLoaded {
    std::vector<sigv4::AwsKeys> keys;
    std::string error; // "secret <NAME>.<field> (<reference>): <what is wrong>"; no value
};

AwsLoaded load_aws_secrets(const osf::Spec& spec, const SourceEnvironment& env,
                           const HttpGetter& get);

// The forms of the real credentials the proxy writes (the key id and the
// session token), each with the placeholder the sandbox holds: an answer
// echoing one is masked like any secret.
std::vector<EchoForm> aws_written_forms(const std::vector<sigv4::AwsKeys>& keys);

} // namespace osf::secrets
