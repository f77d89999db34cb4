#include "osf/tool_pattern.hpp"

#include "osf/spec_limits.hpp"

#include <re2/re2.h>

namespace osf {

std::shared_ptr<const re2::RE2> compile_tool_pattern(std::string_view pattern, std::string& error) {
    re2::RE2::Options options;
    options.set_encoding(re2::RE2::Options::EncodingUTF8);
    // RE2 writes compile errors to stderr by default: the validator reports them itself.
    options.set_log_errors(false);
    options.set_max_mem(static_cast<int64_t>(spec_limits::max_tool_pattern_memory));
    options.set_never_capture(true); // only whether it matches counts
    auto compiled =
        std::make_shared<const re2::RE2>(re2::StringPiece(pattern.data(), pattern.size()), options);
    if (!compiled->ok()) {
        error = compiled->error();
        for (char& c : error)
            if (c == '\n' || c == '\r') c = ' ';
        return nullptr;
    }
    return compiled;
}

bool tool_pattern_matches(const re2::RE2& pattern, std::string_view value) {
    return re2::RE2::FullMatch(re2::StringPiece(value.data(), value.size()), pattern);
}

} // namespace osf
