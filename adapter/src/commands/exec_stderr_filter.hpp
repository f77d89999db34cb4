// kubectl exec mixes the remote command's stderr with its own last words:
// "command terminated with exit code N" when the command failed, or an
// "error: ..." line when kubectl itself failed. This filter forwards the
// stream as it arrives but holds back such lines until the end, so the
// adapter can exit with the command's own code, or report kubectl's error in
// the adapter's format, without printing kubectl's line.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace osf::commands {

class ExecStderrFilter {
public:
    explicit ExecStderrFilter(std::function<void(std::string_view)> forward)
        : forward_(std::move(forward)) {}

    void feed(std::string_view chunk);

    struct Ending {
        std::optional<int> command_exit_code; // from "command terminated with exit code N"
        std::string kubectl_error;            // kubectl's own error line, when it failed
    };
    // Call once kubectl has exited with `kubectl_exit_code`.
    Ending finish(int kubectl_exit_code);

private:
    void complete_line(std::string line);
    void release_held();

    std::function<void(std::string_view)> forward_;
    std::string partial_;   // the current line, not yet forwarded
    bool mid_line_ = false; // part of the current line was already forwarded
    std::string held_;      // a complete line that may be kubectl's
};

} // namespace osf::commands
