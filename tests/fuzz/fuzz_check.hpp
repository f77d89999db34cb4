// Invariant checks for the fuzz targets: a broken invariant aborts, which
// libFuzzer reports as a crash and saves the input (crash-<sha1>).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace osf::fuzz {

[[noreturn]] inline void invariant_failed(const char* what, const char* file, int line) {
    std::fprintf(stderr, "\n==osf-fuzz== invariant broken at %s:%d: %s\n", file, line, what);
    std::abort();
}

// Checks for bugs that are known and not fixed yet (tests/fuzz/findings/)
// can be skipped by name until the fix lands, so that the target keeps
// looking for new ones: OSF_FUZZ_IGNORE=framing,origin-form.
inline bool ignored(std::string_view finding) {
    static const std::string list = [] {
        const char* env = std::getenv("OSF_FUZZ_IGNORE");
        return "," + std::string(env ? env : "") + ",";
    }();
    return list.find("," + std::string(finding) + ",") != std::string::npos;
}

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
    return {reinterpret_cast<const char*>(data), size};
}

} // namespace osf::fuzz

#define OSF_FUZZ_CHECK(condition)                                                                  \
    do {                                                                                           \
        if (!(condition)) ::osf::fuzz::invariant_failed(#condition, __FILE__, __LINE__);           \
    } while (false)

#define OSF_FUZZ_OPEN_FINDING(name, condition)                                                     \
    do {                                                                                           \
        if (!::osf::fuzz::ignored(name) && !(condition))                                           \
            ::osf::fuzz::invariant_failed("[open finding " name "] " #condition, __FILE__,         \
                                          __LINE__);                                               \
    } while (false)
