// Copies bytes both ways between two connected sockets until both directions
// have ended, passing a half-close on. Used on both sides of the sandbox's
// network namespace: TCP 127.0.0.1:8080 inside to the Unix socket, and the
// Unix socket outside to the proxy's loopback port.
#pragma once

#include "backends/local/unix_socket.hpp"

namespace osf::backends::local {

// Blocks until both directions are done; closes both.
void relay_bytes(Fd a, Fd b);

// Runs relay_bytes on a detached thread.
void relay_in_background(Fd a, Fd b);

} // namespace osf::backends::local
