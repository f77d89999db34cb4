#include "commands/command_errors.hpp"

#include "kubectl/kubectl_error.hpp"
#include "manifests/settings.hpp"

#include <ostream>

namespace osf::commands {

void check_interrupted(const CommandContext& context) {
    if (const int signal = context.pending_signal ? context.pending_signal() : 0)
        throw Interrupted(signal);
}

int run_guarded(CommandContext& context, const std::function<int()>& body) {
    try {
        return body();
    } catch (const UsageError& e) {
        context.err << "sandbox-kubernetes: " << e.what() << "\n";
        return kExitUsage;
    } catch (const manifests::SettingsError& e) {
        context.err << "sandbox-kubernetes: " << e.what() << "\n";
        return kExitUsage;
    } catch (const Interrupted& e) {
        context.err << "sandbox-kubernetes: interrupted\n";
        return 128 + e.signal();
    } catch (const kubectl::KubectlError& e) {
        context.err << "sandbox-kubernetes: " << e.what() << "\n";
        return kExitFailure;
    } catch (const std::exception& e) {
        context.err << "sandbox-kubernetes: " << e.what() << "\n";
        return kExitFailure;
    }
}

} // namespace osf::commands
