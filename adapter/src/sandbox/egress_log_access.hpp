// Where a sandbox's egress log and the key to verify it come from, whatever
// holds the sandbox: each backend implements it (kubernetes/egress_log_source,
// local/local_log_access) and the command layer reads through it
// (commands/egress_log_copy).
#pragma once

#include <optional>
#include <string>

namespace osf::sandbox {

struct LogKey {
    std::string pem; // as published (PUBLIC KEY)
    std::string raw; // 32 bytes
};

// The key in a PEM text; nullopt when it is not an Ed25519 public key.
std::optional<LogKey> log_key_from_pem(const std::string& pem);

// Where one sandbox's log and key come from.
class EgressLogAccess {
public:
    virtual ~EgressLogAccess() = default;
    // The key stored for the sandbox's current proxy; CommandFailed when none.
    virtual LogKey key() = 0;
    // Asks the proxy to sign its log now; throws when it cannot.
    virtual void request_checkpoint() = 0;
    // The whole log as it is now.
    virtual std::string text() = 0;
};

} // namespace osf::sandbox
