#include "h2/nghttp2_support.hpp"

#include <cstdint>

namespace osf::h2 {

std::vector<nghttp2_nv> to_nv(const HeaderList& fields) {
    std::vector<nghttp2_nv> nv;
    nv.reserve(fields.size());
    for (const auto& f : fields)
        nv.push_back({reinterpret_cast<std::uint8_t*>(const_cast<char*>(f.name.data())),
                      reinterpret_cast<std::uint8_t*>(const_cast<char*>(f.value.data())),
                      f.name.size(), f.value.size(), NGHTTP2_NV_FLAG_NONE});
    return nv;
}

void send_session(nghttp2_session* session, std::string& out, std::size_t max) {
    while (out.size() < max) {
        const std::uint8_t* data = nullptr;
        const auto n = nghttp2_session_mem_send(session, &data);
        if (n <= 0) return;
        out.append(reinterpret_cast<const char*>(data), static_cast<std::size_t>(n));
    }
}

} // namespace osf::h2
