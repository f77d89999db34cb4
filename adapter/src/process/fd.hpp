// Owned file descriptors and pipes: what every process the adapter starts is
// given, by number, and nothing else (see spawn.hpp).
#pragma once

#include <cstddef>

namespace osf::process {

// An owned file descriptor, closed when it goes.
class Fd {
public:
    Fd() = default;
    explicit Fd(int fd) : fd_(fd) {}
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    Fd(Fd&& other) noexcept : fd_(other.release()) {}
    Fd& operator=(Fd&& other) noexcept;
    ~Fd();
    int get() const { return fd_; }
    int release();
    explicit operator bool() const { return fd_ >= 0; }

private:
    int fd_ = -1;
};

// Both ends close-on-exec: a spawned process gets an end only by being given it.
struct Pipe {
    Fd read;
    Fd write;
};
// Throws std::runtime_error with the errno text.
Pipe make_pipe();

// /dev/null, close-on-exec, for reading and writing.
Fd open_null();

// Writes everything (retrying on EINTR and short writes); false on error.
bool write_all(int fd, const void* data, std::size_t size);

// O_NONBLOCK on or off; false on error.
bool set_nonblocking(int fd, bool on);

} // namespace osf::process
