// A local sandbox's egress log and key, for egress-log --verify/--summary,
// destroy --save-log and gc --save-logs (commands/egress_log_copy.hpp): the
// log is the proxy's file in the sandbox's directory, the key the copy the
// supervisor took when the proxy started (egress-log-key.pub), and a
// checkpoint is asked of the running proxy with `egress-proxy log checkpoint`.
#pragma once

#include "local/state/local_layout.hpp"
#include "sandbox/egress_log_access.hpp"
#include "sandbox/settings.hpp"

#include <string>

namespace osf::local {

class LocalLogAccess final : public sandbox::EgressLogAccess {
public:
    LocalLogAccess(SandboxPaths paths, std::string id, sandbox::EnvLookup getenv);
    // CommandFailed when the sandbox has no key or it is not an Ed25519 key.
    sandbox::LogKey key() override;
    // Nothing to ask of a suspended sandbox (its proxy wrote its final
    // checkpoint when it stopped); CommandFailed when the proxy is not running
    // or does not answer.
    void request_checkpoint() override;
    // CommandFailed when there is no log.
    std::string text() override;

private:
    SandboxPaths paths_;
    std::string id_;
    sandbox::EnvLookup getenv_;
};

} // namespace osf::local
