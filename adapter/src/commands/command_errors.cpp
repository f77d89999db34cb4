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
    return report_errors(context.err, "sandbox-kubernetes", body);
}

int report_errors(std::ostream& err, const std::string& program, const std::function<int()>& body) {
    const std::string prefix = program + ": ";
    try {
        return body();
    } catch (const UsageError& e) {
        err << prefix << e.what() << "\n";
        return kExitUsage;
    } catch (const manifests::SettingsError& e) {
        err << prefix << e.what() << "\n";
        return kExitUsage;
    } catch (const Interrupted& e) {
        err << prefix << "interrupted\n";
        return 128 + e.signal();
    } catch (const kubectl::KubectlError& e) {
        err << prefix << e.what() << "\n";
        return kExitFailure;
    } catch (const std::exception& e) {
        err << prefix << e.what() << "\n";
        return kExitFailure;
    }
}

} // namespace osf::commands
