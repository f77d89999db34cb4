// A file replaced whole: written beside its path, then renamed over it, so a
// reader sees the old content or the new one, never half of either.
#pragma once

#include <string>
#include <string_view>
#include <sys/types.h>

namespace osf {

// Creates or replaces `path` with `content` and permissions `mode` (whatever
// the umask). Throws std::runtime_error naming the file and the reason.
void write_file_atomically(const std::string& path, std::string_view content, mode_t mode = 0644);

} // namespace osf
