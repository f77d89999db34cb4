// allow and revoke: the proxy's `policy` command line in the egress pod, and
// what kubectl exec's ending says: applied (the policy number), refused by the
// proxy (its reason), or no answer (kubectl's or the proxy's reason).
#include "kubernetes/proxy_policy.hpp"

#include <catch2/catch.hpp>

using osf::kubernetes::proxy_policy_command;
using osf::kubernetes::ProxyPolicyAnswer;
using osf::kubernetes::read_proxy_policy_answer;
using osf::kubernetes::kubectl::KubectlResult;
using Outcome = ProxyPolicyAnswer::Outcome;

TEST_CASE("the command line names the state directory and who asks") {
    CHECK(proxy_policy_command("ana@laptop") ==
          std::vector<std::string>{"/usr/local/bin/egress-proxy", "policy", "--state-dir",
                                   "/var/lib/egress-proxy", "--by", "ana@laptop"});
}

TEST_CASE("exit 0 with the proxy's JSON is applied, with its policy number") {
    const auto answer =
        read_proxy_policy_answer({0,
                                  R"({"generation":3,"allowed":["a.test"],"revoked":[]})"
                                  "\n",
                                  ""});
    CHECK(answer.outcome == Outcome::applied);
    CHECK(answer.generation == 3);
    // Exit 0 without the answer's JSON is no answer.
    CHECK(read_proxy_policy_answer({0, "ok\n", ""}).outcome == Outcome::unreachable);
}

TEST_CASE("exit 2 is the proxy's refusal, its reason without kubectl's last line") {
    const auto answer = read_proxy_policy_answer(
        {2, "",
         "egress-proxy: the proxy refused the new policy (409): only egress and the MCP "
         "servers' tools change while a sandbox runs; secrets differs\n"
         "command terminated with exit code 2\n"});
    CHECK(answer.outcome == Outcome::refused);
    CHECK(answer.reason == "the proxy refused the new policy (409): only egress and the MCP "
                           "servers' tools change while a sandbox runs; secrets differs");
}

TEST_CASE("exit 1 and kubectl's own failures are no answer") {
    auto answer = read_proxy_policy_answer(
        {1, "",
         "egress-proxy: no running proxy named in /var/lib/egress-proxy/listen.json\n"
         "command terminated with exit code 1\n"});
    CHECK(answer.outcome == Outcome::unreachable);
    CHECK(answer.reason == "no running proxy named in /var/lib/egress-proxy/listen.json");
    answer = read_proxy_policy_answer(
        {1, "", "Error from server (NotFound): pods \"osf-sandbox-x-egress\" not found\n"});
    CHECK(answer.outcome == Outcome::unreachable);
    CHECK(answer.reason == "Error from server (NotFound): pods \"osf-sandbox-x-egress\" not found");
    // kubectl exiting 2 by itself (not the proxy's "exit code 2") is not a refusal.
    answer = read_proxy_policy_answer({2, "", "error: unknown flag: --bogus\n"});
    CHECK(answer.outcome == Outcome::unreachable);
    CHECK(answer.reason == "error: unknown flag: --bogus");
    answer = read_proxy_policy_answer({137, "", ""});
    CHECK(answer.outcome == Outcome::unreachable);
    CHECK(answer.reason == "kubectl exec exited 137");
}
