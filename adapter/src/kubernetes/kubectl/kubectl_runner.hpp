// The narrow interface between the adapter and the kubectl binary: every
// cluster operation is one kubectl invocation (or a pipeline of them), so unit
// tests can substitute a fake that records the exact arguments.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace osf::kubernetes::kubectl {

// One kubectl invocation. `args` follow the word "kubectl".
struct KubectlCall {
    std::vector<std::string> args;
    // Bytes written to the child's stdin (closed afterwards). Ignored when
    // `inherit_stdin` is set or when this call reads a previous pipeline stage.
    std::string input;
    // Each entry is written to a pipe the child sees as file descriptor 3, 4,
    // ...: how secret values reach kubectl (`--from-file=KEY=/dev/fd/3`)
    // without appearing on a command line or in a file.
    std::vector<std::string> extra_inputs;
    bool inherit_stdin = false;  // the child reads our stdin (exec -i)
    bool inherit_stdout = false; // the child writes straight to our stdout
    // When set (and stdout is not inherited), the last stage's stdout is
    // delivered here as it arrives instead of being captured.
    std::function<void(std::string_view)> on_stdout;
    // When set, stderr is delivered here as it arrives instead of being captured.
    std::function<void(std::string_view)> on_stderr;
    // When set, asked a few times a second while the call runs; once it
    // returns true, kubectl gets SIGTERM (a deadline passed, or a signal came).
    std::function<bool()> should_stop;
};

struct KubectlResult {
    int exit_code = 0; // 128 + N when kubectl died of signal N
    std::string out;   // captured stdout (empty when inherited or streamed)
    std::string err;   // captured stderr (empty when streamed)
    bool ok() const { return exit_code == 0; }
};

class KubectlRunner {
public:
    virtual ~KubectlRunner() = default;

    // Runs the calls as a pipeline: stage i's stdout feeds stage i+1's stdin.
    // Returns one result per stage; only the last stage's stdout is captured.
    virtual std::vector<KubectlResult> run_pipeline(const std::vector<KubectlCall>& calls) = 0;

    KubectlResult run(const KubectlCall& call) { return run_pipeline({call}).front(); }
};

} // namespace osf::kubernetes::kubectl
