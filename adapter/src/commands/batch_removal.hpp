// One attempt at removing several sandboxes together, shared by gc's and
// destroy's batches.
#pragma once

#include "sandbox/backend.hpp"

#include <string>
#include <vector>

namespace osf::commands {

// True when the backend removed every one of `ids` in one batch. False when
// there is only one, when the backend removes one at a time, or when the
// batch failed: the caller then removes each alone, so that each failure is
// named and one that cannot be removed does not keep the others. Interrupted
// goes through.
bool removed_as_batch(sandbox::Backend& backend, const std::vector<std::string>& ids);

} // namespace osf::commands
