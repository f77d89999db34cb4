#include "local/proxy_launch.hpp"

namespace osf::local {

std::vector<std::string> proxy_argv(const std::string& binary, const SandboxPaths& paths,
                                    const std::string& root) {
    return {binary,
            "--spec",
            paths.spec,
            "--listen",
            "127.0.0.1:0",
            "--admin-listen",
            "127.0.0.1:0",
            "--state-dir",
            paths.proxy_state,
            "--peer-listeners",
            listeners_dir(root)};
}

} // namespace osf::local
