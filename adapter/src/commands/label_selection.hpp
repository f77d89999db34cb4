// -l of list, destroy and gc and --label of create, over any backend.
#pragma once

#include "sandbox/backend.hpp"
#include "sandbox/label_selector.hpp"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace osf::commands {

// The selector of `-l`, or UsageError (exit 2).
sandbox::LabelSelector selector_option(const std::string& text);

// The IDs of the sandboxes `list` shows whose labels the selector matches.
std::set<std::string> selected_ids(sandbox::Backend& backend,
                                   const sandbox::LabelSelector& selector);

// `labels` with create's --label key=value added (each wins over the spec's),
// or UsageError naming the first that is not a user's label.
std::map<std::string, std::string> with_label_options(std::map<std::string, std::string> labels,
                                                      const std::vector<std::string>& options);

} // namespace osf::commands
