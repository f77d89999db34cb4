#include "sandbox/aws_environment.hpp"

#include "osf/aws_placeholder.hpp"

namespace osf::sandbox {

std::vector<std::pair<std::string, std::string>> aws_placeholder_variables(const osf::Spec& spec) {
    std::vector<std::pair<std::string, std::string>> variables;
    // The validator allows one AWS secret: the variables are single.
    for (const auto& [name, secret] : spec.aws_secrets) {
        variables.emplace_back(osf::aws_access_key_id_variable,
                               osf::aws_placeholder_access_key_id(name));
        variables.emplace_back(osf::aws_secret_access_key_variable,
                               osf::aws_placeholder_secret_access_key(name));
        if (secret.session_token)
            variables.emplace_back(osf::aws_session_token_variable,
                                   osf::aws_placeholder_session_token(name));
    }
    return variables;
}

} // namespace osf::sandbox
