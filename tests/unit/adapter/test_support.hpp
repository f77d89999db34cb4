// Test doubles for the adapter: a fake kubectl that records every call and
// answers from rules, and a command context with fake variables, files,
// clock and signals.
#pragma once

#include "kubernetes/kubectl/kubectl_runner.hpp"
#include "kubernetes/operation_context.hpp"

#include <chrono>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace osf::testing {

using osf::kubernetes::kubectl::KubectlCall;
using osf::kubernetes::kubectl::KubectlResult;

// A kubectl call that succeeded and printed `out`.
inline KubectlResult printed(const std::string& out) {
    KubectlResult result;
    result.out = out;
    return result;
}

class FakeKubectl : public osf::kubernetes::kubectl::KubectlRunner {
public:
    // Calls whose args start with `prefix` get `results` in turn (the last repeats).
    void on(std::vector<std::string> prefix, std::vector<KubectlResult> results) {
        rules_.push_back(Rule{std::move(prefix), std::move(results), 0});
    }
    void on(std::vector<std::string> prefix, KubectlResult result) {
        on(std::move(prefix), std::vector{result});
    }

    std::vector<KubectlResult> run_pipeline(const std::vector<KubectlCall>& calls) override {
        pipelines.push_back(calls);
        std::vector<KubectlResult> results;
        for (const auto& call : calls) {
            this->calls.push_back(call);
            if (while_running) while_running(call);
            results.push_back(answer(call));
            if (call.on_stdout && !results.back().out.empty()) {
                call.on_stdout(results.back().out);
                results.back().out.clear();
            }
            if (call.on_stderr && !results.back().err.empty()) {
                call.on_stderr(results.back().err);
                results.back().err.clear();
            }
        }
        return results;
    }

    // The calls whose args start with `prefix`.
    std::vector<KubectlCall> find(const std::vector<std::string>& prefix) const {
        std::vector<KubectlCall> found;
        for (const auto& call : calls)
            if (starts_with(call.args, prefix)) found.push_back(call);
        return found;
    }

    std::vector<KubectlCall> calls;
    std::vector<std::vector<KubectlCall>> pipelines;
    // Called for each call before it is answered: what happens while kubectl
    // runs (time passing, a signal arriving, should_stop being asked).
    std::function<void(const KubectlCall&)> while_running;

private:
    struct Rule {
        std::vector<std::string> prefix;
        std::vector<KubectlResult> results;
        std::size_t next;
    };

    static bool starts_with(const std::vector<std::string>& args,
                            const std::vector<std::string>& prefix) {
        return args.size() >= prefix.size() &&
               std::equal(prefix.begin(), prefix.end(), args.begin());
    }

    KubectlResult answer(const KubectlCall& call) {
        // The most recently added matching rule wins, so tests can override defaults.
        for (auto rule = rules_.rbegin(); rule != rules_.rend(); ++rule) {
            if (!starts_with(call.args, rule->prefix)) continue;
            const KubectlResult result =
                rule->results[std::min(rule->next, rule->results.size() - 1)];
            ++rule->next;
            return result;
        }
        return KubectlResult{};
    }

    std::vector<Rule> rules_;
};

struct TestContext {
    FakeKubectl kubectl;
    std::map<std::string, std::string> env;
    std::set<std::string> files;
    std::ostringstream out;
    std::ostringstream err;
    std::chrono::steady_clock::time_point now{};
    int signal = 0;
    int sleeps = 0;
    // `raised` arrives (as if by Ctrl-C) after this many sleeps; 0 = never.
    int signal_after_sleeps = 0;
    int raised = 2;

    osf::kubernetes::OperationContext context{
        {
            .program = "sandbox-kubernetes",
            .getenv = [this](const std::string& name) -> std::optional<std::string> {
                const auto it = env.find(name);
                return it == env.end() ? std::nullopt : std::optional<std::string>(it->second);
            },
            .file_exists = [this](const std::string& path) { return files.count(path) > 0; },
            .out = out,
            .err = err,
            .now = [this] { return now; },
            .wall_clock =
                [] {
                    // 2026-11-29T19:00:00Z
                    return std::chrono::system_clock::time_point(std::chrono::seconds(1795978800));
                },
            .sleep =
                [this](std::chrono::milliseconds duration) {
                    now += duration;
                    ++sleeps;
                    if (signal_after_sleeps > 0 && sleeps >= signal_after_sleeps) signal = raised;
                },
            .pending_signal = [this] { return signal; },
            .random_bytes =
                [] { return std::array<std::uint8_t, 6>{0x01, 0x23, 0x45, 0x67, 0x89, 0xab}; },
        },
        kubectl};
};

inline KubectlResult ok(std::string out = {}) {
    return KubectlResult{0, std::move(out), {}};
}
inline KubectlResult fail(std::string err, int code = 1) {
    return KubectlResult{code, {}, std::move(err)};
}

} // namespace osf::testing
