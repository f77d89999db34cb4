#include "sandbox/egress_log_access.hpp"

#include "egress_log/log_chain.hpp"

namespace osf::sandbox {

std::optional<LogKey> log_key_from_pem(const std::string& pem) {
    auto key = egress_log::ed25519_key_from_pem(pem);
    if (!key) return std::nullopt;
    return LogKey{pem, *key};
}

} // namespace osf::sandbox
