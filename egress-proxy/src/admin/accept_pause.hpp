// What an accept loop does after accept(2) failed. Out of descriptors
// (EMFILE, ENFILE) or memory (ENOBUFS, ENOMEM), the pending connection stays
// in the backlog and the next accept fails at once: retrying at once spins a
// CPU and starves every other coroutine on that thread (a liveness probe on
// the admin port stops being answered). Pure.
#pragma once

#include <boost/system/error_code.hpp>
#include <chrono>

namespace osf::admin {

enum class AcceptNext { stop, retry, pause };

// `listening`: the acceptor is still open (closed: the server is stopping).
AcceptNext after_accept_error(const boost::system::error_code& error, bool listening);

inline constexpr std::chrono::milliseconds kAcceptPause{100};

} // namespace osf::admin
