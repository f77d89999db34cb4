// The adapter's variables, read once into plain data the manifests use.
#pragma once

#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace osf::manifests {

inline constexpr const char* kDefaultProxyImage = "ghcr.io/opensoftware/egress-proxy:0.1.0";
inline constexpr const char* kDefaultNamespace = "default";
inline constexpr const char* kDefaultSnapshotSize = "1Gi";
inline constexpr const char* kDefaultSecretsDir = "/run/secrets";
inline constexpr int kDefaultStartTimeoutSeconds = 300;

// Looks up an environment variable; nullopt when unset.
using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;

struct Settings {
    std::string ns = kDefaultNamespace;                      // OSF_SANDBOX_NAMESPACE
    std::string proxy_image = kDefaultProxyImage;            // OSF_EGRESS_PROXY_IMAGE
    std::string snapshot_size = kDefaultSnapshotSize;        // OSF_SANDBOX_SNAPSHOT_SIZE
    int start_timeout_seconds = kDefaultStartTimeoutSeconds; // OSF_SANDBOX_START_TIMEOUT
    std::string secrets_dir = kDefaultSecretsDir;            // OSF_SECRETS_DIR
    std::optional<std::string> host_aliases;                 // OSF_SANDBOX_HOST_ALIASES
    std::vector<std::string> allowed_images;                 // OSF_SANDBOX_ALLOWED_IMAGES
    std::optional<std::string> image_pull_policy;            // OSF_SANDBOX_IMAGE_PULL_POLICY
    std::optional<std::string> openbao_addr;                 // OSF_OPENBAO_ADDR
    std::optional<std::string> openbao_mount;                // OSF_OPENBAO_MOUNT
};

// A variable with a value the adapter cannot use (exit 2).
class SettingsError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Reads the variables; empty values count as unset. Throws SettingsError for
// a timeout that is not a positive number, host aliases the egress proxy's
// own parser refuses, or an unknown image pull policy.
Settings read_settings(const EnvLookup& getenv);

} // namespace osf::manifests
