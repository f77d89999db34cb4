#include "commands/command_errors.hpp"
#include "commands/copy_endpoint.hpp"
#include "commands/log_saving.hpp"
#include "commands/subcommands.hpp"

#include <memory>

namespace osf::commands {

void setup_copy(CLI::App& app, CommandContext& context) {
    auto options = std::make_shared<std::pair<std::string, std::string>>();
    CLI::App* sub = app.add_subcommand("copy", "Copy files into or out of a sandbox: <ID>:<path> "
                                               "is the sandbox side, relative to /workspace");
    sub->add_option("from", options->first, "Source: a local path or <ID>:<path>")->required();
    sub->add_option("to", options->second, "Destination: a local path or <ID>:<path>")->required();
    sub->callback([&context, options] {
        guarded(context, [&] {
            const auto from = parse_copy_endpoint(options->first);
            const auto to = parse_copy_endpoint(options->second);
            if (from.id.has_value() == to.id.has_value())
                throw UsageError("copy: exactly one of <from> and <to> must be <ID>:<path>");
            if (from.path.empty() || to.path.empty()) throw UsageError("copy: empty path");
            sandbox::CopyRequest request;
            request.into_sandbox = to.id.has_value();
            request.id = request.into_sandbox ? *to.id : *from.id;
            request.sandbox_path = request.into_sandbox ? to.path : from.path;
            request.local_path = request.into_sandbox ? from.path : to.path;
            context.backend->copy(request);
            return 0;
        });
    });
}

} // namespace osf::commands
