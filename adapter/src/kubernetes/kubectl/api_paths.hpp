// The REST path of a collection, for `kubectl get --raw`: a read that skips
// kubectl's API discovery and its decoding of every object (it copies the
// server's bytes through), which at thousands of objects is most of kubectl's
// time and memory.
#pragma once

#include <optional>
#include <string>

namespace osf::kubernetes::kubectl {

struct Collection {
    std::string path; // "/apis/<group>/<version>/namespaces/<ns>/<plural>" or "/api/v1/..."
    std::string kind; // of its items, which a built-in kind's list items do not carry
};

// `resource` is a plural, fully qualified with its version and group unless
// it is a core kind ("pods", "sandboxclaims.v1beta1.extensions.agents.x-k8s.io",
// as manifests/resources.hpp names them); nullopt for one this adapter does
// not read.
std::optional<Collection> collection(const std::string& resource, const std::string& ns);

// `selector` percent-encoded for a query string.
std::string query_escape(const std::string& selector);

} // namespace osf::kubernetes::kubectl
