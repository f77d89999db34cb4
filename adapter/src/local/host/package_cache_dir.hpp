// /cache of a local sandbox: with the spec's `cache`, a directory of the
// state root shared by every sandbox naming the same claimName (as a
// ReadWriteMany claim is on Kubernetes); without, one of its own. A shared
// one is made writable by all the sandboxes that share it, whatever their
// host ids: mode 0777 and a default ACL that gives every file and directory
// made inside the same (so sandboxes that share a cache can poison it for
// each other, as on Kubernetes).
#pragma once

#include "local/state/local_layout.hpp"
#include "osf/spec.hpp"

#include <string>

namespace osf::local {

// Where it is (pure), and the directory created when missing (throws
// std::runtime_error).
std::string package_cache_path(const std::string& root, const SandboxPaths& paths,
                               const osf::Spec& spec);
std::string package_cache_dir(const std::string& root, const SandboxPaths& paths,
                              const osf::Spec& spec);

// The POSIX ACL that system.posix_acl_default and system.posix_acl_access
// take for rwx to owner, group and others (the kernel's xattr format). Pure.
std::string everyone_rwx_acl();

} // namespace osf::local
