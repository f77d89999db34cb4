#include "commands/label_selection.hpp"
#include "commands/line_stream.hpp"
#include "commands/log_saving.hpp"
#include "commands/machine_output.hpp"
#include "commands/sandbox_request_reader.hpp"
#include "commands/subcommands.hpp"

#include <memory>
#include <ostream>

namespace osf::commands {

void setup_create(CLI::App& app, CommandContext& context) {
    struct Options {
        std::string spec;
        bool dry_run = false;
        std::vector<std::string> labels;
        std::string output;
        std::string progress;
    };
    auto options = std::make_shared<Options>();
    CLI::App* sub =
        app.add_subcommand("create", "Start a sandbox from a spec; prints its 12-hex-digit ID");
    sub->add_option("spec", options->spec, "The sandbox spec (JSON)")->required();
    sub->add_flag("--dry-run", options->dry_run, context.texts.create_dry_run);
    sub->add_option("--label", options->labels,
                    "key=value: a label of the sandbox, with the spec's `labels` (repeatable; "
                    "wins over the spec's; Kubernetes label syntax)");
    sub->add_option("-o,--output", options->output,
                    "json: {id, template, created, expires, labels, names} "
                    "(contracts/cli-output.schema.json); id (the default): the ID alone");
    sub->add_option("--progress", options->progress,
                    "json: progress as JSON lines on stderr ({\"type\":\"progress\",\"message\"}); "
                    "text (the default): as lines of text");
    sub->callback([&context, options] {
        guarded(context, [&] {
            const bool json_output = wants_json(options->output, "create");
            const bool json_progress = wants_json_progress(options->progress);
            auto request = read_sandbox_request(options->spec, context.getenv, context.file_exists,
                                                context.random_bytes, context.wall_clock());
            request.spec.labels = with_label_options(request.spec.labels, options->labels);
            // Advice, not an error: a secret for every egress host still works.
            for (const auto& line : osf::spec_warnings(request.spec))
                context.err << context.program << ": " << line << "\n";
            if (options->dry_run) {
                context.out << context.backend->describe(request).dump(2) << "\n";
                return 0;
            }
            if (json_progress) {
                LineStream progress([&](std::string_view line) {
                    context.err << progress_line(line) << "\n" << std::flush;
                    return true;
                });
                context.backend->create(request, progress);
                progress.finish();
            } else {
                context.backend->create(request, context.err);
            }
            if (json_output)
                context.out << created_json(request, context.backend->names(request)).dump()
                            << std::endl;
            else
                context.out << request.id << std::endl;
            return 0;
        });
    });
}

} // namespace osf::commands
