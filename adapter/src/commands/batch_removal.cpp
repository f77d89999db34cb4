#include "commands/batch_removal.hpp"

#include "commands/command_errors.hpp"

namespace osf::commands {

bool removed_as_batch(sandbox::Backend& backend, const std::vector<std::string>& ids) {
    try {
        return ids.size() > 1 && backend.remove_batch(ids);
    } catch (const Interrupted&) {
        throw;
    } catch (const std::exception&) {
        return false;
    }
}

} // namespace osf::commands
