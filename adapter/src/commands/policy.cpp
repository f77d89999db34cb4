#include "commands/command_errors.hpp"
#include "commands/sandbox_id_argument.hpp"
#include "commands/subcommands.hpp"
#include "osf/policy_edit.hpp"
#include "sandbox/policy_changer.hpp"

#include <memory>
#include <ostream>
#include <pwd.h>
#include <unistd.h>

namespace osf::commands {

namespace {

struct PolicyOptions {
    std::string id;
    std::vector<std::string> hosts;
    std::vector<std::string> tools;
};

// "user@host": who asks, as the egress log's policy line records it.
std::string caller_name(const CommandContext& context) {
    std::string user;
    if (const passwd* entry = ::getpwuid(::geteuid())) user = entry->pw_name;
    if (user.empty()) user = context.getenv("USER").value_or("uid " + std::to_string(::geteuid()));
    char host[256] = {};
    if (::gethostname(host, sizeof host - 1) != 0) host[0] = 0;
    return user + "@" + (host[0] ? host : "localhost");
}

std::string joined(const std::vector<std::string>& names) {
    std::string out;
    for (const auto& name : names)
        out += (out.empty() ? "" : " ") + name;
    return out;
}

void setup_one(CLI::App& app, CommandContext& context, sandbox::PolicyChanger& changer,
               osf::policy_edit::Direction direction) {
    const bool allow = direction == osf::policy_edit::Direction::allow;
    auto options = std::make_shared<PolicyOptions>();
    CLI::App* sub = app.add_subcommand(
        allow ? "allow" : "revoke",
        allow ? "Let a running sandbox reach more hosts (egress entries, as in the spec) or call "
                "more tools of its declared MCP servers, without restarting it"
              : "Take hosts or MCP tools away from a running sandbox: refused from its next "
                "request on");
    sub->add_option("id", options->id, "The sandbox ID (12 hex digits)")->required();
    sub->add_option("hosts", options->hosts,
                    "Egress entries as the spec writes them: host, host:port, *.domain; "
                    "tcp:HOST:PORT for a raw TCP destination (the spec's tcp list)");
    sub->add_option("--mcp", options->tools,
                    "SERVER:TOOL, a tool of a server the spec declares; SERVER:{\"name\", "
                    "\"arguments\"} sets its argument rules")
        ->take_all();
    sub->callback([&context, &changer, options, direction, allow] {
        guarded(context, [&] {
            const std::string id = parse_sandbox_id(options->id);
            if (options->hosts.empty() && options->tools.empty())
                throw UsageError(std::string(allow ? "allow" : "revoke") +
                                 ": name at least one host or --mcp SERVER:TOOL");
            const auto result = changer.change_policy(
                id, {direction, options->hosts, options->tools}, caller_name(context));
            const char* verb = allow ? "allowed" : "revoked";
            if (!result.changed.empty())
                context.out << verb << " in " << id << ": " << joined(result.changed)
                            << (result.live ? " (policy " + std::to_string(result.generation) +
                                                  ", in force now)"
                                            : " (stored: in force when the sandbox resumes)")
                            << "\n";
            if (!result.unchanged.empty())
                context.out << "already allowed in " << id << ": " << joined(result.unchanged)
                            << "\n";
            return 0;
        });
    });
}

} // namespace

void setup_policy_commands(CLI::App& app, CommandContext& context,
                           sandbox::PolicyChanger& changer) {
    setup_one(app, context, changer, osf::policy_edit::Direction::allow);
    setup_one(app, context, changer, osf::policy_edit::Direction::revoke);
}

} // namespace osf::commands
