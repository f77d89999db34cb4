#include "local/state/local_lifecycle.hpp"

#include "sandbox/lifetime.hpp"

namespace osf::local {

namespace {

std::string time_text(long long seconds) {
    return sandbox::rfc3339(std::chrono::system_clock::time_point(std::chrono::seconds(seconds)));
}

} // namespace

std::string sandbox_status(const SandboxMeta& meta, const SandboxLiveness& liveness) {
    if (liveness.supervisor_running) return liveness.ready ? "Ready" : "Starting";
    return meta.suspended_at != 0 ? "Suspended" : "Stopped";
}

std::optional<std::string> gc_reason(const SandboxMeta& meta, const SandboxLiveness& liveness,
                                     long long now) {
    if (liveness.supervisor_running) return std::nullopt;
    if (meta.suspended_at == 0) return "supervisor gone (killed, or the machine restarted)";
    if (meta.expires != 0 && now >= meta.expires)
        return "expired at " + time_text(meta.expires) + " while suspended";
    return std::nullopt;
}

std::optional<std::chrono::milliseconds> time_to_expiry(const SandboxMeta& meta,
                                                        std::chrono::system_clock::time_point now) {
    if (meta.expires == 0) return std::nullopt;
    const auto expiry = std::chrono::system_clock::time_point(std::chrono::seconds(meta.expires));
    if (now >= expiry) return std::chrono::milliseconds(0);
    return std::chrono::duration_cast<std::chrono::milliseconds>(expiry - now);
}

} // namespace osf::local
