#include "local/workspace_copy.hpp"

#include "commands/command_errors.hpp"
#include "local/copy_out.hpp"
#include "local/host_program.hpp"

#include <filesystem>
#include <unistd.h>
#include <vector>

namespace osf::local {

namespace fs = std::filesystem;

void copy_workspace(const std::string& workspace, const std::string& destination) {
    const std::string parent = fs::path(destination).parent_path().string();
    std::vector<std::string> argv{"bwrap", "--ro-bind", "/usr", "/usr"};
    for (const char* dir : {"/bin", "/lib", "/lib64", "/sbin"})
        argv.insert(argv.end(), {"--ro-bind-try", dir, dir});
    argv.insert(argv.end(),
                {"--ro-bind", workspace, "/src", "--bind", parent, "/dst", "--dev", "/dev",
                 "--proc", "/proc", "--die-with-parent", "--unshare-ipc", "--unshare-pid",
                 "--unshare-net", "--unshare-uts", "--unshare-cgroup-try"});
    if (::geteuid() == 0) {
        // No user namespace (the files' owners would not map in one): root keeps
        // what cp -a needs to copy every file with its owner, and nothing else.
        argv.insert(argv.end(), {"--cap-drop", "ALL", "--cap-add", "CAP_CHOWN", "--cap-add",
                                 "CAP_FOWNER", "--cap-add", "CAP_DAC_OVERRIDE"});
    } else {
        argv.insert(argv.end(), {"--unshare-user", "--disable-userns"});
    }
    argv.insert(argv.end(),
                {"--", "cp", "-a", "/src", "/dst/" + fs::path(destination).filename().string()});
    if (wait_exit(spawn_host(argv, 0, 1)) != 0)
        throw commands::CommandFailed("copying " + workspace + " to " + destination + " failed");
    strip_privilege_bits(destination);
}

} // namespace osf::local
