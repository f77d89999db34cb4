// kubectl exec mixes the remote command's stderr with its own last words:
// "command terminated with exit code N" when the command exited N (kubectl
// then exits N too), or an "error: ..." line when kubectl itself failed. This
// filter forwards the stream as it arrives but holds back what may still turn
// out to be such a last line, so the adapter can drop kubectl's line, or
// report kubectl's error in the adapter's format. The exit code comes from
// kubectl's exit status alone: a line is kubectl's only when it matches that
// status and nothing follows it, so a command cannot fake its result, and
// every line the command printed is passed on.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace osf::kubernetes {

class ExecStderrFilter {
public:
    explicit ExecStderrFilter(std::function<void(std::string_view)> forward)
        : forward_(std::move(forward)) {}

    void feed(std::string_view chunk);

    struct Ending {
        // kubectl reported the command's status: 0, or N with its own
        // "command terminated with exit code N" as the last line.
        std::optional<int> command_exit_code;
        std::string kubectl_error; // kubectl's own error line, when it failed
    };
    // Call once kubectl has exited with `kubectl_exit_code`.
    Ending finish(int kubectl_exit_code);

    // Longest held line: kubectl's errors are far shorter; a longer line is output.
    static constexpr std::size_t kMaxHeld = 4096;

private:
    std::function<void(std::string_view)> forward_;
    std::string held_;               // the stream's unforwarded end: part of its last line
    bool held_at_line_start_ = true; // held_ starts a line (what came before ended with \n)
};

} // namespace osf::kubernetes
