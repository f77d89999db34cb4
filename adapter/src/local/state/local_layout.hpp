// Where sandbox-local keeps its state: one directory per sandbox and per
// snapshot below a root chosen from the user and the variables. Pure.
#pragma once

#include "osf/proxy_state.hpp"
#include "sandbox/settings.hpp"

#include <string>

namespace osf::local {

// The root: OSF_SANDBOX_LOCAL_STATE_DIR when set; /var/lib/osf-sandbox-local
// for root; $XDG_STATE_HOME/osf-sandbox-local or
// $HOME/.local/state/osf-sandbox-local for anyone else. Throws
// sandbox::SettingsError when none can be found (no HOME) or the variable is
// not absolute.
std::string state_root(const sandbox::EnvLookup& getenv, bool is_root);

// The files of one sandbox, all below <root>/sandboxes/<ID>.
struct SandboxPaths {
    std::string dir;
    std::string spec;            // the spec as given: the proxy's --spec
    std::string meta;            // sandbox.json: template, creation time
    std::string workspace;       // bound at /workspace
    std::string proxy_state;     // the proxy's --state-dir: ca.crt, egress.jsonl
    std::string proxy_output;    // the proxy's stdout and stderr
    std::string proxy_socket;    // an earlier version's proxy listener, removed if there
    std::string admin_socket;    // the proxy's admin listener, likewise
    std::string log_key;         // the running proxy's egress log key, copied when it started
    std::string run;             // sockets the sandbox may see (bound under /run/osf)
    std::string egress_socket;   // the proxy's listener, bound by the supervisor (in run)
    std::string control;         // exec requests to the supervisor (never inside)
    std::string lock;            // held by the supervisor while it runs
    std::string pid;             // the supervisor's process ID
    std::string ready;           // exists while the sandbox is ready
    std::string log;             // the supervisor's own messages
    std::string sandbox_log;     // what bwrap and the agent said while the sandbox started
    std::string sandbox_ca;      // the proxy's CA, readable by the sandbox's host id (in run)
    std::string ssh_config;      // the sandbox's /etc/ssh/ssh_config, likewise (in run)
    std::string cache;           // /cache when the spec names no shared cache
    std::string workspace_image; // the file system of /workspace, with storage or persistence
    std::string cgroups;         // the cgroups the supervisor made, one per line

    std::string ca() const {
        return osf::proxy_state::path_in(proxy_state, osf::proxy_state::ca_certificate);
    }
    std::string egress_log() const {
        return osf::proxy_state::path_in(proxy_state, osf::proxy_state::egress_log);
    }
    std::string published_log_key() const {
        return osf::proxy_state::path_in(proxy_state, osf::proxy_state::log_key);
    }
    std::string listen_file() const {
        return osf::proxy_state::path_in(proxy_state, osf::proxy_state::listen);
    }
};

SandboxPaths sandbox_paths(const std::string& root, const std::string& id);
std::string sandboxes_dir(const std::string& root);
std::string snapshots_dir(const std::string& root);
// Shared package caches, one directory per `cache.claimName`.
std::string caches_dir(const std::string& root);
// Where earlier versions listed each running proxy's TCP ports; the proxies
// listen on Unix sockets now (SandboxPaths::egress_socket), and gc removes the
// files still there.
std::string listeners_dir(const std::string& root);
// Held while a host id is chosen for a new sandbox.
std::string host_ids_lock(const std::string& root);
std::string snapshot_dir(const std::string& root, const std::string& name);

} // namespace osf::local
