#include "commands/log_saving.hpp"

#include "commands/egress_log_source.hpp"
#include "egress_log/log_verifier.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <ostream>
#include <unistd.h>

namespace osf::commands {

namespace {

// Writes `text` to a new file (never over an existing one: it may be evidence).
void write_new_file(const std::string& path, const std::string& text) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0640);
    if (fd < 0) throw CommandFailed("cannot create " + path + ": " + std::strerror(errno));
    std::size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            const std::string why = std::strerror(errno);
            ::close(fd);
            throw CommandFailed("cannot write " + path + ": " + why);
        }
        done += static_cast<std::size_t>(n);
    }
    if (::fsync(fd) != 0 || ::close(fd) != 0)
        throw CommandFailed("cannot write " + path + ": " + std::strerror(errno));
}

} // namespace

void save_log(CommandContext& context, kubectl::Kubectl& kube, const std::string& id,
              const std::string& path) {
    const std::string pod = find_egress_pod(kube, id);
    const auto key = cluster_log_key(kube, id);
    try {
        request_checkpoint(kube, pod); // so that the copy is signed to its last line
    } catch (const std::exception& e) {
        context.err << "sandbox-kubernetes: the proxy wrote no checkpoint (" << e.what()
                    << "); lines after its last one are unsigned\n";
    }
    const std::string text = fetch_egress_log(kube, pod);
    const auto report = egress_log::verify_log(text, key.raw);
    write_new_file(path, text);
    write_new_file(path + ".pub", key.pem); // the ConfigMap goes with the sandbox
    if (!report.ok)
        throw LogDoesNotVerify(
            "saved the egress log to " + path + " but it does not verify (" +
            (report.bad_line ? "line " + std::to_string(report.bad_line) + ": " : std::string()) +
            report.problem + ")");
    context.err << egress_log::describe(report, path);
}

} // namespace osf::commands
