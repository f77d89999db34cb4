// The environment of a program the CLI (or a supervisor) starts on the host:
// explicit and minimal, never the caller's whole environment, which holds
// OSF_SECRET_* values and tokens. A host program that reads a path the
// sandbox chose (a symlink to /proc/self/environ) then finds nothing worth
// having. buildah alone gets the variables that configure its storage,
// registries and proxies. Pure.
#pragma once

#include <string>
#include <vector>

namespace osf::local {

// `program`: argv[0] (a name or a path); `caller`: the caller's environment,
// "NAME=value" each. PATH is the caller's (it chose the programs), or a
// default; the locale stays; the rest only for buildah, and never OSF_*.
std::vector<std::string> host_program_environment(const std::string& program,
                                                  const std::vector<std::string>& caller);

} // namespace osf::local
