// The real runner, with /bin/sh standing in for kubectl: stdin, extra input
// descriptors, pipelines, captured and streamed output, exit codes.
#include "kubernetes/kubectl/kubectl_error.hpp"
#include "kubernetes/kubectl/process_kubectl_runner.hpp"

#include <catch2/catch.hpp>

using osf::kubernetes::kubectl::KubectlCall;
using osf::kubernetes::kubectl::ProcessKubectlRunner;

TEST_CASE("runner: captures stdout, stderr and the exit code; feeds stdin") {
    ProcessKubectlRunner sh("sh");
    KubectlCall call;
    call.args = {"-c", "cat; echo oops >&2; exit 3"};
    call.input = "hello";
    const auto result = sh.run(call);
    CHECK(result.exit_code == 3);
    CHECK(result.out == "hello");
    CHECK(result.err == "oops\n");
}

TEST_CASE("runner: extra inputs arrive on fd 3 and 4, not on the command line") {
    ProcessKubectlRunner sh("sh");
    KubectlCall call;
    call.args = {"-c", "cat /dev/fd/3; echo; cat /dev/fd/4"};
    call.extra_inputs = {"first secret", "second\nline"};
    const auto result = sh.run(call);
    CHECK(result.exit_code == 0);
    CHECK(result.out == "first secret\nsecond\nline");
}

TEST_CASE("runner: a pipeline connects stdout to stdin; large data does not deadlock") {
    ProcessKubectlRunner sh("sh");
    KubectlCall produce;
    produce.args = {"-c", "cat; echo produced >&2"};
    produce.input = std::string(1 << 20, 'x');
    KubectlCall count;
    count.args = {"-c", "wc -c"};
    const auto results = sh.run_pipeline({produce, count});
    REQUIRE(results.size() == 2);
    CHECK(results[0].exit_code == 0);
    CHECK(results[0].err == "produced\n");
    CHECK(results[1].out.find("1048576") != std::string::npos);
}

TEST_CASE("runner: streamed stderr and stdout go to their callbacks, not into the result") {
    ProcessKubectlRunner sh("sh");
    KubectlCall call;
    call.args = {"-c", "echo one >&2; echo out; echo two >&2"};
    std::string streamed;
    call.on_stderr = [&](std::string_view chunk) { streamed.append(chunk); };
    const auto result = sh.run(call);
    CHECK(streamed == "one\ntwo\n");
    CHECK(result.err.empty());
    CHECK(result.out == "out\n"); // captured: no stdout callback
    std::string streamed_out;
    call.on_stdout = [&](std::string_view chunk) { streamed_out.append(chunk); };
    call.on_stderr = nullptr;
    const auto both = sh.run(call);
    CHECK(streamed_out == "out\n");
    CHECK(both.out.empty());
    CHECK(both.err == "one\ntwo\n");
}

TEST_CASE("runner: a missing program is exit 127 with a message") {
    ProcessKubectlRunner missing("/nonexistent/kubectl");
    KubectlCall call;
    call.args = {"version"};
    const auto result = missing.run(call);
    CHECK(result.exit_code == 127);
    CHECK(osf::kubernetes::kubectl::describe_failure({"version"}, result)
              .find("kubectl version failed: cannot run") == 0);
}

TEST_CASE("runner: a killed child reports 128 + signal") {
    ProcessKubectlRunner sh("sh");
    KubectlCall call;
    call.args = {"-c", "kill -9 $$"};
    const auto result = sh.run(call);
    CHECK(result.exit_code == 137);
}
