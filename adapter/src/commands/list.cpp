
#include "commands/label_selection.hpp"
#include "commands/log_saving.hpp"
#include "commands/subcommands.hpp"

#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>

namespace osf::commands {

void setup_list(CLI::App& app, CommandContext& context) {
    auto output = std::make_shared<std::string>();
    auto json = std::make_shared<bool>(false);
    auto selector = std::make_shared<std::string>();
    CLI::App* sub = app.add_subcommand("list", context.texts.list);
    sub->add_option("-o,--output", *output,
                    "wide: ID, STATUS, AGE, EXPIRES, IMAGE with a header; json: an array; "
                    "yaml: the same as YAML; name: sandbox/<ID> per line, as kubectl -o name")
        ->check(CLI::IsMember({"wide", "json", "yaml", "name"}));
    sub->add_flag("--json", *json, "The same as -o json");
    sub->add_option("-l,--selector", *selector,
                    "Only sandboxes whose labels match: k=v, k==v, k!=v, k, !k, comma-separated");
    sub->callback([&context, output, json, selector] {
        guarded(context, [&] {
            const auto wanted = selector_option(*selector);
            const std::string format = *json ? "json" : *output;
            auto rows = context.backend->list(format == "json" || format == "yaml");
            std::erase_if(rows, [&](const sandbox::SandboxRow& row) {
                return !sandbox::selector_matches(wanted, row.labels);
            });
            if (format == "json")
                context.out << sandbox::rows_json(rows).dump(2) << "\n";
            else if (format == "yaml")
                context.out << sandbox::rows_yaml(rows);
            else if (format == "wide")
                context.out << sandbox::wide_table(rows);
            else if (format == "name")
                for (const auto& row : rows)
                    context.out << "sandbox/" << row.id << "\n";
            else
                for (const auto& row : rows)
                    context.out << row.id << "\n";
            return 0;
        });
    });
}

} // namespace osf::commands
