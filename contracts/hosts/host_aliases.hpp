// OSF_SANDBOX_HOST_ALIASES, "host=ip,host=ip": the proxy resolves each host to
// its address; the CLIs read the variable with the same parser, so a value the
// proxy would refuse is refused before a sandbox starts. Pure.
#pragma once

#include <boost/asio/ip/address.hpp>
#include <map>
#include <string>
#include <string_view>

namespace osf::hosts {

// Canonical host (hosts/host.hpp) -> the address it stands for.
using HostAliases = std::map<std::string, boost::asio::ip::address>;
struct AliasParse {
    HostAliases aliases;
    std::string error; // empty on success; names the bad entry
};
AliasParse parse_host_aliases(std::string_view text);

} // namespace osf::hosts
