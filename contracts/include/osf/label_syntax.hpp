// Kubernetes label syntax and the keys a sandbox's own labels may not use:
// the spec's `labels`, `create --label` and `-l` selectors all go through it.
#pragma once

#include <optional>
#include <string>

namespace osf {

// Why `key`=`value` cannot be a user's label of a sandbox: not a Kubernetes
// label (a key of an optional DNS-subdomain prefix and '/' and a name of 1-63
// letters, digits, '-', '_', '.', alphanumeric at both ends; a value empty or
// such a name), or a key the adapters set or select on (osf.*, anything under
// osf.sandbox/ or agents.x-k8s.io/, app.kubernetes.io/managed-by and /component).
std::optional<std::string> user_label_problem(const std::string& key, const std::string& value);

// The same for the key alone (a selector may name any key, the adapter's too).
std::optional<std::string> label_key_problem(const std::string& key);
// The same for a value alone.
std::optional<std::string> label_value_problem(const std::string& key, const std::string& value);

} // namespace osf
