// Turning the ID a user typed into the cluster objects it names.
#pragma once

#include "commands/sandbox_id_argument.hpp"
#include "kubernetes/kubectl/kubectl.hpp"

#include <string>
#include <vector>

namespace osf::kubernetes {

// The first of `items` (what Kubectl::list found by the ID's label), or
// CommandFailed "no sandbox <ID>" when there is none.
nlohmann::json first_or_no_sandbox(const nlohmann::json& items, const std::string& id);

// The sandbox's object of `resource` named after it (osf-sandbox-<ID>: its
// claim, template, warm pool), read by name: the same cost whatever the
// namespace holds. CommandFailed "no sandbox <ID>" when there is none.
nlohmann::json named_or_no_sandbox(kubectl::Kubectl& kube, const std::string& resource,
                                   const std::string& id);

// The sandbox pod's name, from its claim's .status.sandbox.name (the claim's
// own name until the controller fills it in). CommandFailed "no sandbox <ID>"
// when there is no claim.
std::string find_sandbox_pod(kubectl::Kubectl& kube, const std::string& id);

// Deletes the sandbox's Secret by its name (never read, so whether it exists
// is not known: not-found is fine), the claim and then the Sandbox named after
// it (the controller may not label it) with foreground cascading deletion,
// waited for, then every other object by its name (resources.hpp): the same
// few calls whatever the namespace holds. Only a sandbox that has no claim (a
// create that failed before it, parts left by an old version) is also swept by
// its label, as nothing then owns what has no known name. Returns when nothing
// of the sandbox is left that a controller could start again.
void remove_sandbox(kubectl::Kubectl& kube, const std::string& id);
// remove_sandbox for several sandboxes at once: the same steps, each one
// kubectl call naming every sandbox's objects (a few calls per batch, not per
// sandbox).
void remove_sandboxes(kubectl::Kubectl& kube, const std::vector<std::string>& ids);

} // namespace osf::kubernetes
