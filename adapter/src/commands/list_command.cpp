#include "commands/list_command.hpp"

#include "commands/command_errors.hpp"
#include "kubectl/kubectl.hpp"
#include "manifests/labels.hpp"
#include "manifests/resources.hpp"
#include "manifests/sandbox_list.hpp"
#include "manifests/settings.hpp"

#include <algorithm>
#include <ostream>

namespace osf::commands {

int run_list(CommandContext& context, const ListOptions& options) {
    const auto settings = manifests::read_settings(context.getenv);
    kubectl::Kubectl kube(context.runner, settings.ns);
    const std::string kinds = std::string(manifests::kSandboxClaims) + "," +
                              manifests::kSandboxTemplates + "," + manifests::kPods;
    const auto rows = manifests::sandbox_rows(kube.list(kinds, manifests::managed_selector()),
                                              context.wall_clock());
    if (options.json) {
        nlohmann::json array = nlohmann::json::array();
        for (const auto& row : rows)
            array.push_back({{"id", row.id},
                             {"status", row.status},
                             {"created", row.created},
                             {"ageSeconds", row.age_seconds},
                             {"image", row.image}});
        context.out << array.dump(2) << "\n";
        return 0;
    }
    std::size_t status_width = 0;
    for (const auto& row : rows)
        status_width = std::max(status_width, row.status.size());
    for (const auto& row : rows) {
        const std::string age = manifests::format_age(row.age_seconds);
        context.out << row.id << "  " << row.status
                    << std::string(status_width - row.status.size(), ' ') << "  " << age
                    << std::string(age.size() < 4 ? 4 - age.size() : 0, ' ') << "  " << row.image
                    << "\n";
    }
    return 0;
}

void setup_list(CLI::App& app, CommandContext& context) {
    auto options = std::make_shared<ListOptions>();
    CLI::App* sub = app.add_subcommand(
        "list", "List sandboxes in the namespace: ID, status, age, image (one line each)");
    sub->add_flag("--json", options->json, "Print a JSON array instead");
    sub->callback([&context, options] {
        context.exit_code = run_guarded(context, [&] { return run_list(context, *options); });
    });
}

} // namespace osf::commands
