#include "kubernetes/manifests/pod_security_refusal.hpp"
#include "sandbox/settings.hpp"

#include <catch2/catch.hpp>

using namespace osf::kubernetes::manifests;
using namespace osf::sandbox;

TEST_CASE("a Pod Security refusal names the level and fields; root mode only when about root") {
    const std::string hostpath =
        "Error from server (Forbidden): pods \"p\" is forbidden: violates PodSecurity "
        "\"baseline:latest\": hostPath volumes (volume \"host\")";
    CHECK(pod_security_refusal(hostpath, false) ==
          "Pod Security \"baseline:latest\" forbids hostPath volumes (volume \"host\")");
    const std::string root = "pods \"p\" is forbidden: violates PodSecurity \"restricted:latest\": "
                             "runAsNonRoot != true (pod or container \"sandbox\" must set "
                             "securityContext.runAsNonRoot=true)";
    CHECK(pod_security_refusal(root, false) ==
          "Pod Security \"restricted:latest\" forbids runAsNonRoot != true (pod or container "
          "\"sandbox\" must set securityContext.runAsNonRoot=true) (without \"user\" in its spec "
          "a sandbox runs in root mode, which Pod Security \"restricted\" refuses)");
    CHECK(pod_security_refusal(root, true).find("root mode") == std::string::npos);
    CHECK(pod_security_refusal("something else", false) == "something else");
}
