#include "local/operations/backend_support.hpp"

#include "commands/command_errors.hpp"
#include "local/copy/copy_out.hpp"
#include "local/host/host_program.hpp"
#include "process/spawn.hpp"
#include "sandbox/lifetime.hpp"

#include <fcntl.h>
#include <filesystem>

namespace osf::local {

namespace fs = std::filesystem;
using commands::CommandFailed;

int run_host_quietly(const std::vector<std::string>& argv) {
    Fd null(::open("/dev/null", O_RDWR | O_CLOEXEC));
    return wait_exit(spawn_host(argv, null.get(), null.get(), null.get()));
}

// The program's stdout without its last newline; CommandFailed when it fails.
std::string run_host_output(const std::vector<std::string>& argv) {
    auto run = run_capturing(argv, Captured::stdout_text);
    if (run.exit_code != 0) throw CommandFailed(argv[0] + " " + argv[1] + " failed");
    return std::move(run.text);
}

void remove_buildah_container(const std::string& name) {
    if (!name.empty()) run_host_quietly({"buildah", "rm", name});
}

sandbox::WallTime wall_time(long long seconds) {
    return sandbox::WallTime(std::chrono::seconds(seconds));
}

long long epoch_seconds(sandbox::WallTime time) {
    return std::chrono::duration_cast<std::chrono::seconds>(time.time_since_epoch()).count();
}

SandboxLiveness liveness_of(const SandboxPaths& paths) {
    return {supervisor_running(paths), fs::exists(paths.ready)};
}

} // namespace osf::local
