// The listeners of the other egress proxies on this machine (sandbox-local runs
// one per sandbox, each on the host's loopback): a sandbox whose spec aliases a
// name to 127.0.0.1 must not reach another sandbox's proxy or admin port
// through its own proxy. `--peer-listeners DIR` names a directory of files,
// one per peer, each holding "ADDR:PORT" lines; it is read at each new upstream
// connection to a loopback address, since peers come and go.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace osf::net {

// "127.0.0.1:8080\n[::1]:9090\n" -> endpoints; lines that are not ADDR:PORT are skipped.
std::vector<boost::asio::ip::tcp::endpoint> parse_listener_lines(std::string_view text);

// Every endpoint listed by the regular files of `dir` (at most 4,096 files of at
// most 4 KiB each are read; an unreadable directory lists none).
std::vector<boost::asio::ip::tcp::endpoint> read_peer_listeners(const std::string& dir);

} // namespace osf::net
