// OSF_SANDBOX_HOST_ALIASES parsing: "host=ip,host=ip". Aliases map names only;
// an address cannot be aliased to another address.
#include "hosts/host_aliases.hpp"

#include "hosts/host.hpp"

#include <boost/asio/ip/address.hpp>

namespace osf::hosts {
namespace {

// An environment value may carry a newline (a file read into it, a YAML block).
std::string_view trim(std::string_view s) {
    const auto first = s.find_first_not_of(" \t\n\r");
    if (first == std::string_view::npos) return {};
    return s.substr(first, s.find_last_not_of(" \t\n\r") - first + 1);
}

std::optional<boost::asio::ip::address> parse_alias_address(std::string_view text) {
    if (text.size() >= 2 && text.front() == '[' && text.back() == ']')
        text = text.substr(1, text.size() - 2);
    if (text.empty() || text.find('%') != std::string_view::npos) return std::nullopt;
    boost::system::error_code error;
    auto address = boost::asio::ip::make_address(std::string(text), error);
    if (error) return std::nullopt;
    return address;
}

} // namespace

AliasParse parse_host_aliases(std::string_view text) {
    AliasParse result;
    auto fail = [&](std::string_view entry, std::string_view why) {
        result.aliases.clear();
        result.error = "OSF_SANDBOX_HOST_ALIASES: bad entry \"" + std::string(entry) +
                       "\": " + std::string(why);
        return result;
    };
    while (true) {
        std::size_t comma = text.find(',');
        std::string_view entry = trim(text.substr(0, comma));
        if (!entry.empty()) {
            std::size_t equals = entry.find('=');
            if (equals == std::string_view::npos) return fail(entry, "expected host=ip");
            std::string_view name = trim(entry.substr(0, equals));
            std::string_view ip = trim(entry.substr(equals + 1));
            auto host = canonical_host(name);
            if (!host) return fail(entry, "not a valid host name");
            if (host_as_address(*host))
                return fail(entry, "the host must be a name, not an address");
            auto address = parse_alias_address(ip);
            if (!address) return fail(entry, "not an IP address");
            auto [it, inserted] = result.aliases.emplace(*host, *address);
            if (!inserted && it->second != *address)
                return fail(entry, "the host already has a different address");
        }
        if (comma == std::string_view::npos) break;
        text.remove_prefix(comma + 1);
    }
    return result;
}

} // namespace osf::hosts
