// The adapter's variables, read once into plain data the manifests use.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace osf::sandbox {

inline constexpr const char* kDefaultProxyImage = "ghcr.io/opensoftware/egress-proxy:0.1.0";
// A spec without `template`: the project's sandbox-base image (images/sandbox-base).
inline constexpr const char* kDefaultSandboxImage = "ghcr.io/opensoftware/sandbox-base:0.1.0";
inline constexpr const char* kDefaultNamespace = "default";
inline constexpr const char* kDefaultSnapshotSize = "1Gi";
inline constexpr const char* kDefaultSecretsDir = "/run/secrets";
inline constexpr int kDefaultStartTimeoutSeconds = 300;
// A sandbox nobody removes still ends: 8 hours covers a working day's agent
// session; a week is the most anyone may ask for (OSF_SANDBOX_MAX_LIFETIME).
inline constexpr std::chrono::seconds kDefaultLifetime = std::chrono::hours(8);
inline constexpr std::chrono::seconds kDefaultMaxLifetime = std::chrono::hours(24 * 7);
// How far past its expiry the kubelet lets a sandbox's pods run
// (activeDeadlineSeconds), and so how far `extend` can move the expiry: an
// hour of work beyond the planned end, while a sandbox whose controller is
// down still ends within an hour of its expiry.
inline constexpr std::chrono::seconds kDefaultExtendWindow = std::chrono::hours(1);
// exec's bound when --timeout is not given: long enough for a build.
inline constexpr std::chrono::seconds kDefaultExecTimeout = std::chrono::hours(1);
// Parts of a sandbox without a claim are collected only after this long: a
// create in progress makes its claim last (after at most its start timeout).
inline constexpr std::chrono::seconds kDefaultGcGrace = std::chrono::minutes(15);

// Looks up an environment variable; nullopt when unset.
using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;

struct Settings {
    std::string ns = kDefaultNamespace;               // OSF_SANDBOX_NAMESPACE
    std::string proxy_image = kDefaultProxyImage;     // OSF_EGRESS_PROXY_IMAGE
    std::string default_image = kDefaultSandboxImage; // OSF_SANDBOX_DEFAULT_IMAGE
    // OSF_SANDBOX_REQUIRE_ALLOWED_IMAGES=true: create refuses without an allowlist.
    bool require_allowed_images = false;
    std::string snapshot_size = kDefaultSnapshotSize;          // OSF_SANDBOX_SNAPSHOT_SIZE
    std::optional<std::string> snapshot_storage_class;         // OSF_SANDBOX_SNAPSHOT_STORAGE_CLASS
    int start_timeout_seconds = kDefaultStartTimeoutSeconds;   // OSF_SANDBOX_START_TIMEOUT
    std::string secrets_dir = kDefaultSecretsDir;              // OSF_SECRETS_DIR
    std::optional<std::string> host_aliases;                   // OSF_SANDBOX_HOST_ALIASES
    std::vector<std::string> allowed_images;                   // OSF_SANDBOX_ALLOWED_IMAGES
    std::optional<std::string> image_pull_policy;              // OSF_SANDBOX_IMAGE_PULL_POLICY
    std::optional<std::string> upstream_ca_bundle;             // OSF_UPSTREAM_CA_BUNDLE (a path)
    std::optional<std::string> openbao_addr;                   // OSF_OPENBAO_ADDR
    std::optional<std::string> openbao_mount;                  // OSF_OPENBAO_MOUNT
    std::chrono::seconds default_lifetime = kDefaultLifetime;  // OSF_SANDBOX_DEFAULT_LIFETIME
    std::chrono::seconds max_lifetime = kDefaultMaxLifetime;   // OSF_SANDBOX_MAX_LIFETIME
    std::chrono::seconds extend_window = kDefaultExtendWindow; // OSF_SANDBOX_EXTEND_WINDOW
    std::chrono::seconds exec_timeout = kDefaultExecTimeout;   // OSF_SANDBOX_EXEC_TIMEOUT
    std::chrono::seconds gc_grace = kDefaultGcGrace;           // OSF_SANDBOX_GC_GRACE
    // OSF_SANDBOX_POD_LABELS ("team=a,cost-center=42"): on the sandbox and egress pods.
    std::vector<std::pair<std::string, std::string>> pod_labels;
    // OSF_SANDBOX_REQUIRED_TOOLS ("git,timeout"): create fails when the image lacks one.
    std::vector<std::string> required_tools;
};

// A variable with a value the adapter cannot use (exit 2).
class SettingsError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Reads the variables; empty values count as unset. Throws SettingsError for
// a timeout that is not a positive number, host aliases the egress proxy's
// own parser refuses, an unknown image pull policy, or a storage class that
// is no Kubernetes object name.
Settings read_settings(const EnvLookup& getenv);

} // namespace osf::sandbox
