// A tool argument's `matches` pattern compiled the one way the validator and
// the proxy both read it: RE2 (linear time in the argument, no backtracking),
// UTF-8, anchored at both ends, bounded memory, nothing logged.
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace re2 {
class RE2;
}

namespace osf {

// The compiled pattern, or nullptr with `error` set to RE2's one-line reason.
std::shared_ptr<const re2::RE2> compile_tool_pattern(std::string_view pattern, std::string& error);

// Whether the whole of `value` matches `pattern` (from compile_tool_pattern).
bool tool_pattern_matches(const re2::RE2& pattern, std::string_view value);

} // namespace osf
