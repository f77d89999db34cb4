// The kubectl version the adapter needs, and reading the version a kubectl
// binary reports (`kubectl version --client -o json`). Pure: no process.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace osf::kubernetes::kubectl {

struct KubectlVersion {
    int major = 0;
    int minor = 0;
    std::string text; // as kubectl prints it ("v1.32.3"), for messages
};

// exec over WebSocket, the discovery `--dry-run=server` and `auth can-i --list`
// need: 1.30 is the oldest kubectl the adapter is tested against (docs in adapter/README.md).
inline constexpr int kMinimumKubectlMajor = 1;
inline constexpr int kMinimumKubectlMinor = 30;

// The client version in `kubectl version --client -o json`'s output, or nullopt
// when it names none. Minor versions such as "32+" (vendor builds) read as 32.
std::optional<KubectlVersion> parse_client_version(std::string_view json_output);

bool is_supported(const KubectlVersion& version);

// "kubectl v1.20.15 is too old: sandbox-kubernetes needs kubectl 1.30 or newer ..."
std::string too_old_message(const KubectlVersion& version);

} // namespace osf::kubernetes::kubectl
