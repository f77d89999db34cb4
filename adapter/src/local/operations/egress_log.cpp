#include "local/operations/egress_log.hpp"

#include "commands/command_errors.hpp"
#include "egress_log/request_lines.hpp"
#include "local/operations/local_log_access.hpp"
#include "local/state/sandbox_store.hpp"
#include "process/spawn.hpp"

#include <array>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <thread>

namespace osf::local::operations {

void egress_log(OperationContext& context, const std::string& id, std::ostream& out, bool follow,
                bool raw) {
    const SandboxPaths paths = context.existing(id);
    std::ifstream log(paths.egress_log(), std::ios::binary);
    egress_log::RequestLineFilter filter; // unless raw: the request lines only
    auto print = [&](std::string_view text) {
        if (raw)
            out << text;
        else
            out << filter.feed(text);
    };
    if (!follow) {
        std::array<char, 65536> buffer{};
        while (log && (log.read(buffer.data(), buffer.size()), log.gcount() > 0))
            print(std::string_view(buffer.data(), static_cast<std::size_t>(log.gcount())));
        if (!raw) out << filter.finish();
        out.flush();
        return;
    }
    // Whole lines, as `egress-proxy log --follow` prints them, until the
    // supervisor is gone: it lets go of its lock only after its proxy wrote
    // its last line, so the read after that sees everything.
    std::string pending;
    std::array<char, 65536> buffer{};
    while (true) {
        const bool running = supervisor_running(paths);
        if (!log.is_open()) log.open(paths.egress_log(), std::ios::binary);
        while (log && (log.read(buffer.data(), buffer.size()), log.gcount() > 0))
            pending.append(buffer.data(), static_cast<std::size_t>(log.gcount()));
        log.clear();
        if (const auto newline = pending.rfind('\n'); newline != std::string::npos) {
            print(std::string_view(pending).substr(0, newline + 1));
            out << std::flush;
            pending.erase(0, newline + 1);
        }
        if (!running || !out) return;
        for (int slice = 0; slice < 4; ++slice) {
            if (const int signal =
                    context.options.pending_signal ? context.options.pending_signal() : 0)
                throw commands::Interrupted(signal);
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
    }
}

std::unique_ptr<sandbox::EgressLogAccess> egress_log_access(OperationContext& context,
                                                            const std::string& id) {
    return std::make_unique<LocalLogAccess>(context.existing(id), id, context.options.getenv);
}

} // namespace osf::local::operations
