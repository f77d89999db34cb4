// Saving a sandbox's egress log before it is removed (destroy --save-log,
// gc --save-logs): a copy signed to its last line, verified against the
// cluster's key, written with that key next to it. Never over an existing
// file: a saved log may be evidence.
#pragma once

#include "commands/command_context.hpp"
#include "commands/command_errors.hpp"
#include "kubectl/kubectl.hpp"

#include <string>

namespace osf::commands {

// The copy was written to `path` (and its key to `path`.pub) but does not
// verify; what() says why, naming the first bad line.
class LogDoesNotVerify : public CommandFailed {
public:
    using CommandFailed::CommandFailed;
};

// Copies sandbox `id`'s egress log to `path` and its key to `path`.pub and
// prints how it verified. Throws LogDoesNotVerify when the copy does not
// verify, CommandFailed/KubectlError when it cannot be read or written: the
// caller then removes nothing.
void save_log(CommandContext& context, kubectl::Kubectl& kube, const std::string& id,
              const std::string& path);

} // namespace osf::commands
