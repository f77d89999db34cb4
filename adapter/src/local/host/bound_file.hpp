// A file of the state directory that a running sandbox sees through a bind
// (its CA at /etc/osf/egress-ca.crt): a bind holds the file's inode, so the
// file is made before the sandbox starts and later rewritten in place, never
// replaced by a rename. A reader inside may see it half written; nothing in
// the sandbox runs before create has returned, and allow rewrites it only
// with the same certificates and more.
#pragma once

#include <string>
#include <string_view>
#include <sys/types.h>

namespace osf::local {

// Makes `path` with `mode` when it does not exist; keeps what it holds when
// it does. std::runtime_error naming the file and the reason.
void make_bound_file(const std::string& path, mode_t mode);

// Replaces what `path` holds with `content`, in place. std::runtime_error
// "cannot rewrite <path>: <reason>".
void rewrite_bound_file(const std::string& path, std::string_view content);

} // namespace osf::local
