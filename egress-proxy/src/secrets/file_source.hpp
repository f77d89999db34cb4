// `ref:file/<name>`: the file <name> directly in the secrets directory
// (OSF_SECRETS_DIR, a mounted Kubernetes Secret in a cluster).
#pragma once

#include "secrets/source_result.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace osf::secrets {

// A credential larger than this is not a header value; the bound also keeps
// a mistaken reference (a device, a huge file) from being read whole.
inline constexpr std::size_t max_secret_file_size = 64 * 1024;

// Why `name` cannot name a file in the directory: empty, ".", holding "/" (no
// subdirectories, no absolute paths) or ".." (no way out), or a NUL byte.
std::optional<std::string> file_name_problem(std::string_view name);

// Reads the file, following symbolic links (Kubernetes mounts Secrets as
// links into a "..data" directory), and drops one trailing "\n" or "\r\n".
SourceResult read_file_secret(const std::string& name, const std::string& directory);

} // namespace osf::secrets
