// Descriptors: the proxy raises its soft RLIMIT_NOFILE to the hard limit at
// start, and keeps --max-connections within what that allows, so that a flood
// of connections meets the 503 over --max-connections before accept(2) meets
// EMFILE (which would starve the admin port, the log and the upstream side).
#pragma once

#include <cstddef>
#include <cstdint>

namespace osf::config {

// Descriptors kept aside for what is not a client connection: listeners, the
// log, the state files, DNS, OpenBao, the admin port's own connections.
inline constexpr std::uint64_t kReservedDescriptors = 256;

// The most client connections `descriptors` can serve: each may hold its own
// and one upstream connection (HTTP/2 streams share theirs). Pure.
std::size_t connections_within(std::uint64_t descriptors);

// The soft limit raised to the hard one (I/O); returns the limit now in force.
std::uint64_t raise_descriptor_limit();

} // namespace osf::config
