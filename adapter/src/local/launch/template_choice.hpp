// What a spec's `template` means to sandbox-local. Pure: the caller says what
// exists on the machine.
#pragma once

#include <functional>
#include <string>

namespace osf::local {

inline constexpr const char* kHostTemplate = "host";

struct TemplateChoice {
    enum class Kind { Host, RootDirectory, Image, Snapshot };
    Kind kind = Kind::Host;
    std::string root_directory; // RootDirectory: the directory
    std::string snapshot;       // Snapshot: its name (a snapshot_dir below the state root)
    std::string image;          // Image: the reference, present in buildah's local storage
};

struct TemplateLookup {
    std::function<bool(const std::string&)> directory_exists;
    std::function<bool(const std::string&)> snapshot_exists;
    std::function<bool(const std::string&)> image_exists; // in buildah's local storage
};

// "host": the host's system directories; an absolute path: a root file system
// directory (UsageError when it is not one); an image reference: the image in
// buildah's local storage (UsageError, exit 2, when it is not there: nothing
// is pulled); any other name: a snapshot of
// that name, or CommandFailed (exit 1) as a missing SandboxTemplate is on
// Kubernetes.
TemplateChoice choose_template(const std::string& name, const TemplateLookup& lookup);

} // namespace osf::local
