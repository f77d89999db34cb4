#include "commands/cli_parsing.hpp"

#include "commands/command_errors.hpp"

#include <algorithm>
#include <ostream>
#include <vector>

namespace osf::commands {

namespace {

// The names of the registered subcommands, in order.
std::vector<std::string> command_names(CLI::App& app) {
    std::vector<std::string> names;
    for (const auto* sub : app.get_subcommands([](CLI::App*) { return true; }))
        names.push_back(sub->get_name());
    return names;
}

std::string joined(const std::vector<std::string>& names) {
    std::string text;
    for (const auto& name : names)
        text += (text.empty() ? "" : ", ") + name;
    return text;
}

// The words after the first "--" of a subcommand with a `command` positional
// (exec), given to it as written: CLI11 2.1 reads a word like "[a,b]" given to
// a list option as the list a, b, so `exec ID -- echo '[x]'` would echo x.
// Returns the words CLI11 parses, in its reverse order.
std::vector<std::string> hand_over_command_words(CLI::App& app, int argc, const char* const* argv) {
    std::vector<std::string> words(argv + std::min(argc, 1), argv + argc);
    CLI::App* sub = nullptr;
    for (const auto& word : words) {
        if (word == "--") break;
        if (word.starts_with('-')) continue;
        const auto named = app.get_subcommands([&](CLI::App* s) { return s->get_name() == word; });
        if (!named.empty()) sub = named.front();
        break;
    }
    CLI::Option* command = sub ? sub->get_option_no_throw("command") : nullptr;
    const auto dashes = std::find(words.begin(), words.end(), "--");
    if (command && dashes != words.end()) {
        const bool extra = command->get_allow_extra_args();
        command->allow_extra_args(false); // one result per word, no list reading
        for (auto it = dashes + 1; it != words.end(); ++it)
            command->add_result(*it);
        command->allow_extra_args(extra);
        words.erase(dashes, words.end());
    }
    std::reverse(words.begin(), words.end());
    return words;
}

} // namespace

std::optional<int> parse_cli(CLI::App& app, std::ostream& out, std::ostream& err,
                             const std::string& prefix, int argc, const char* const* argv) {
    // The first word that is not an option must name a command; CLI11 would
    // call it an unexpected argument.
    const auto names = command_names(app);
    if (argc > 1 && argv[1][0] != '-' &&
        std::find(names.begin(), names.end(), argv[1]) == names.end()) {
        print_error(err,
                    std::string("unknown command '") + argv[1] + "'; the commands are " +
                        joined(names) + " (run with --help)",
                    prefix);
        return kExitUsage;
    }
    try {
        auto words = hand_over_command_words(app, argc, argv);
        app.parse(words);
    } catch (const CLI::ParseError& e) {
        // --help and --version print to stdout and exit 0.
        if (e.get_exit_code() == 0) return app.exit(e, out, err);
        // Every usage error is one line with our prefix, and exit 2.
        std::string message = one_line(e.what());
        if (dynamic_cast<const CLI::RequiredError*>(&e) && argc <= 1)
            message = "no command given; the commands are " + joined(names);
        print_error(err, message + " (run with --help)", prefix);
        return kExitUsage;
    }
    return std::nullopt;
}

} // namespace osf::commands
