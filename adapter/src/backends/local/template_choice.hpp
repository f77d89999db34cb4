// What a spec's `template` means to sandbox-local. Pure: the caller says what
// exists on the machine.
#pragma once

#include <functional>
#include <string>

namespace osf::backends::local {

inline constexpr const char* kHostTemplate = "host";

struct TemplateChoice {
    enum class Kind { Host, RootDirectory, Snapshot };
    Kind kind = Kind::Host;
    std::string root_directory; // RootDirectory: the directory
    std::string snapshot;       // Snapshot: its name (a snapshot_dir below the state root)
};

struct TemplateLookup {
    std::function<bool(const std::string&)> directory_exists;
    std::function<bool(const std::string&)> snapshot_exists;
};

// "host": the host's system directories; an absolute path: a root file system
// directory (UsageError when it is not one); an image reference: UsageError
// (exit 2), since images are not run locally; any other name: a snapshot of
// that name, or CommandFailed (exit 1) as a missing SandboxTemplate is on
// Kubernetes.
TemplateChoice choose_template(const std::string& name, const TemplateLookup& lookup);

} // namespace osf::backends::local
