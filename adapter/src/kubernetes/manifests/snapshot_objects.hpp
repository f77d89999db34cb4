// A snapshot: a PVC holding a copy of /workspace, the short-lived pod that
// receives the copy, and a SandboxTemplate whose pod starts from it. The PVC
// and the template carry osf.snapshot.of, not osf.sandbox.id, so destroy
// leaves them.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace osf::kubernetes::manifests {

inline constexpr const char* kSnapshotVolume = "osf-snapshot";
inline constexpr const char* kSnapshotMount = "/osf-snapshot";
inline constexpr const char* kSnapshotCopyMount = "/data";
inline constexpr const char* kRestoreContainer = "osf-restore-workspace";
inline constexpr const char* kSnapshotUnpackDir = ".osf-unpacking";

// The copy's two ends: what /workspace's contents are packed with in the
// sandbox pod, and unpacked with in the copy pod's /data. Only the contents'
// metadata is kept, never the top directory's: a volume's top directory is
// root's, and a non-root copy may write in it but not set its mode or times
// (GNU tar tries to for the archive's `.`, even with --no-overwrite-dir, and
// fails).
std::vector<std::string> snapshot_pack_command();
std::vector<std::string> snapshot_unpack_command();

// The restore container's command: each entry of the snapshot copied into
// /workspace with its times and modes, /workspace itself left as it is.
std::vector<std::string> snapshot_restore_command();

struct SnapshotRequest {
    std::string id;
    std::string ns;
    std::string stamp; // UTC time, YYYYMMDDhhmmss
    std::string size;  // OSF_SANDBOX_SNAPSHOT_SIZE
    std::string image; // the sandbox container's image: it has tar and cp
    // The sandbox pod's and its container's securityContext: the copy pod and
    // the restore container run as the sandbox does (root or its user), so
    // they are admitted wherever the sandbox is.
    nlohmann::json pod_security = nlohmann::json::object();
    nlohmann::json container_security = nlohmann::json::object();
    std::optional<std::string> image_pull_policy = std::nullopt; // OSF_SANDBOX_IMAGE_PULL_POLICY
    std::optional<std::string> storage_class = std::nullopt; // OSF_SANDBOX_SNAPSHOT_STORAGE_CLASS
};

// Fills `request`'s image and security contexts from the sandbox's own
// SandboxTemplate; the image is empty when the template names none.
void take_sandbox_pod_settings(const nlohmann::json& sandbox_template, SnapshotRequest& request);

// {osf.snapshot.of: id, app.kubernetes.io/managed-by: sandbox-kubernetes}
nlohmann::json snapshot_labels(const std::string& id);

nlohmann::json snapshot_pvc(const SnapshotRequest& request);

// Mounts the PVC at /data and sleeps; labelled with the sandbox ID so that a
// copy pod left behind by an interrupted snapshot goes with destroy.
nlohmann::json snapshot_copy_pod(const SnapshotRequest& request);

// `source` is the sandbox's SandboxTemplate as read from the cluster. The
// copy's pod gets an init container that copies the PVC into /workspace; the
// source's spec variables and secret placeholders are removed (the new
// sandbox gets its own spec's), its hardening and resources are kept.
nlohmann::json snapshot_template(const nlohmann::json& source, const SnapshotRequest& request);

// At `create`, a template that restores a snapshot (kRestoreContainer) has
// its restore container see /workspace as the sandbox container does (the
// same volume and subPath: a claim's `workspace` subPath with `persistence`,
// the root of an emptyDir without) and run with its securityContext (the new
// sandbox's user, whatever the snapshot's source ran as). The snapshot's
// template is written before the new sandbox's spec is known. Other
// templates are returned as they are.
nlohmann::json with_restore_as_sandbox(nlohmann::json sandbox_template);

} // namespace osf::kubernetes::manifests
