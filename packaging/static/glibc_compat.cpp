// Linked into the static preset's programs only. The static libstdc++ of
// GCC 12 was built against glibc 2.36 and refers to two symbols glibc 2.31
// (Debian 11, the oldest glibc the binaries link against) does not have.
// Defining them here resolves those references inside the binary, on every
// glibc, with the behaviour libstdc++ falls back to when they are absent.
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <sys/random.h>

extern "C" {

// glibc 2.32+: non-zero while the process has one thread, letting libstdc++
// skip atomic reference counts. Always "maybe several threads": always atomic.
char __libc_single_threaded = 0;

// glibc 2.36+: std::random_device's default source. The kernel's CSPRNG, as
// glibc's own arc4random uses; getrandom is in glibc since 2.25.
std::uint32_t arc4random() {
    std::uint32_t value = 0;
    for (;;) {
        const ssize_t got = ::getrandom(&value, sizeof value, 0);
        if (got == static_cast<ssize_t>(sizeof value)) return value;
        if (got < 0 && errno != EINTR) std::abort(); // as glibc's: no silent weak randomness
    }
}

} // extern "C"
