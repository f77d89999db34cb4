// What a named SandboxTemplate (an administrator's hardening) may hold and
// what a spec may ask of it. The overlay (pod_security, sandbox_objects) only
// tightens a template's settings; these are the cases it cannot tighten: a
// volume type Pod Security "restricted" forbids, and a spec asking for more
// than the template's limits. Pure.
#pragma once

#include "osf/spec.hpp"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace osf::kubernetes::manifests {

// The volume types Pod Security "restricted" allows.
inline constexpr const char* kRestrictedVolumeTypes[] = {
    "configMap", "csi",   "downwardAPI", "emptyDir", "ephemeral", "persistentVolumeClaim",
    "projected", "secret"};

// A Kubernetes resource quantity ("500m", "2", "1Gi", "1e3", "1.5G") as a
// number of units (cores, bytes); nullopt when the text is not one.
std::optional<long double> parse_quantity(std::string_view text);

// Why `create` refuses this pod template with this spec (exit 2), naming the
// field and the fix; nullopt when it may be used. A snapshot's template
// (labelled osf.snapshot.of) sets no ceiling: its limits came from a spec.
std::optional<std::string> template_refusal(const nlohmann::json& pod_template,
                                            const osf::Spec& spec);

} // namespace osf::kubernetes::manifests
