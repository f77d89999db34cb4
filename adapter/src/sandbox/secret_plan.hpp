// Which keys the egress side's Secret holds, and where kubectl takes each one
// from. Checks that every secret of the spec can be resolved before anything
// starts; never reads a value (kubectl reads files itself).
#pragma once

#include "osf/spec.hpp"
#include "sandbox/settings.hpp"

#include <functional>
#include <string>
#include <vector>

namespace osf::sandbox {

// Keys in the Secret. Prefixes keep the three kinds apart.
inline constexpr const char* kEnvKeyPrefix = "env.";   // env.<NAME>: value of OSF_SECRET_<NAME>
inline constexpr const char* kFileKeyPrefix = "file."; // file.<name>: the file <name>
inline constexpr const char* kOpenBaoTokenKey = "openbao-token";

struct SecretPlan {
    // ref:env targets: the Secret key env.<NAME> holds the adapter's OSF_SECRET_<NAME>.
    std::vector<std::string> env_names;
    // ref:file names: the Secret key file.<name> holds <secrets_dir>/<name>.
    std::vector<std::string> file_names;
    // ref:openbao is used: the Secret key openbao-token holds OSF_OPENBAO_TOKEN.
    bool openbao = false;

    bool empty() const { return env_names.empty() && file_names.empty() && !openbao; }
};

struct SecretPlanResult {
    SecretPlan plan;
    std::vector<std::string> errors; // one line per secret that cannot be resolved
};

using FileExists = std::function<bool(const std::string& path)>;

SecretPlanResult plan_secrets(const osf::Spec& spec, const Settings& settings,
                              const EnvLookup& getenv, const FileExists& file_exists);

} // namespace osf::sandbox
