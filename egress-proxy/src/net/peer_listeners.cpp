#include "net/peer_listeners.hpp"

#include <charconv>
#include <filesystem>
#include <fstream>

namespace osf::net {

std::vector<boost::asio::ip::tcp::endpoint> parse_listener_lines(std::string_view text) {
    std::vector<boost::asio::ip::tcp::endpoint> out;
    while (!text.empty()) {
        const auto end = text.find('\n');
        auto line = text.substr(0, end);
        text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
        const auto colon = line.rfind(':');
        if (colon == std::string_view::npos || colon == 0) continue;
        auto host = line.substr(0, colon);
        if (host.size() > 2 && host.front() == '[' && host.back() == ']')
            host = host.substr(1, host.size() - 2);
        const auto port_text = line.substr(colon + 1);
        unsigned port = 0;
        const auto [ptr, ec] =
            std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
        if (ec != std::errc() || ptr != port_text.data() + port_text.size() || port == 0 ||
            port > 65535)
            continue;
        boost::system::error_code bad;
        const auto address = boost::asio::ip::make_address(std::string(host), bad);
        if (bad) continue;
        out.emplace_back(address, static_cast<unsigned short>(port));
    }
    return out;
}

std::vector<boost::asio::ip::tcp::endpoint> read_peer_listeners(const std::string& dir) {
    std::vector<boost::asio::ip::tcp::endpoint> out;
    std::error_code ec;
    std::filesystem::directory_iterator it(dir, ec), end;
    for (std::size_t files = 0; !ec && it != end && files < 4096; it.increment(ec), ++files) {
        if (!it->is_regular_file(ec)) continue;
        std::ifstream in(it->path());
        std::string text(4096, '\0');
        in.read(text.data(), static_cast<std::streamsize>(text.size()));
        text.resize(static_cast<std::size_t>(in.gcount()));
        for (auto& endpoint : parse_listener_lines(text))
            out.push_back(endpoint);
    }
    return out;
}

} // namespace osf::net
