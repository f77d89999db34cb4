#include "cli/bash_completion.hpp"

#include <cctype>
#include <ostream>
#include <sstream>
#include <vector>

namespace osf::cli {

namespace {

bool hidden(const std::string& group) {
    return group.empty();
}

struct Level {
    std::string name;                       // "" for the program itself
    std::vector<std::string> words;         // completions at this level
    std::vector<std::string> value_options; // options whose next word is a value
    bool takes_id = false;                  // a positional "id": sandbox IDs complete
};

void collect(const CLI::App& app, const std::string& name, std::vector<Level>& levels) {
    Level level{.name = name, .words = {}, .value_options = {}};
    for (const CLI::App* sub : app.get_subcommands(
             [](const CLI::App* s) { return !hidden(s->get_group()) && !s->get_disabled(); }))
        level.words.push_back(sub->get_name());
    for (const CLI::Option* opt : app.get_options()) {
        if (hidden(opt->get_group())) continue;
        std::vector<std::string> names;
        for (const auto& l : opt->get_lnames())
            names.push_back("--" + l);
        for (const auto& s : opt->get_snames())
            names.push_back("-" + s);
        if (opt->get_name() == "id" && opt->get_lnames().empty() && opt->get_snames().empty())
            level.takes_id = true;
        for (const auto& n : names) {
            level.words.push_back(n);
            if (opt->get_expected_max() != 0) level.value_options.push_back(n); // flags expect 0
        }
    }
    levels.push_back(std::move(level));
    for (const CLI::App* sub : app.get_subcommands(
             [](const CLI::App* s) { return !hidden(s->get_group()) && !s->get_disabled(); }))
        collect(*sub, sub->get_name(), levels);
}

std::string join(const std::vector<std::string>& items, const char* separator) {
    std::string out;
    for (const auto& item : items) {
        if (!out.empty()) out += separator;
        out += item;
    }
    return out;
}

std::string function_name(const std::string& program) {
    std::string out = "_osf_";
    for (char c : program)
        out += (std::isalnum(static_cast<unsigned char>(c)) != 0) ? c : '_';
    return out;
}

} // namespace

std::string bash_completion(const CLI::App& app, const std::string& program) {
    std::vector<Level> levels;
    collect(app, "", levels);
    std::vector<std::string> subcommands;
    std::vector<std::string> value_cases;
    std::vector<std::string> id_commands;
    for (const auto& level : levels) {
        if (!level.name.empty()) subcommands.push_back(level.name);
        if (level.takes_id) id_commands.push_back(level.name);
        for (const auto& option : level.value_options)
            value_cases.push_back("\"" + level.name + ":" + option + "\"");
    }
    const std::string fn = function_name(program);
    std::ostringstream out;
    out << "# bash completion for " << program << " (" << program << " --bash-completion)\n"
        << fn << "() {\n"
        << "    local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n"
        << "    local sub=\"\" i\n";
    if (!subcommands.empty()) {
        out << "    for ((i = 1; i < COMP_CWORD; i++)); do\n"
            << "        case \"${COMP_WORDS[i]}\" in\n"
            << "            " << join(subcommands, "|") << ") sub=\"${COMP_WORDS[i]}\"; break ;;\n"
            << "        esac\n"
            << "    done\n";
    }
    if (!value_cases.empty()) {
        // An option's value: leave it to bash's file name completion (-o default).
        out << "    case \"$sub:$prev\" in\n"
            << "        " << join(value_cases, "|") << ") COMPREPLY=(); return ;;\n"
            << "    esac\n";
    }
    out << "    local words\n"
        << "    case \"$sub\" in\n";
    for (const auto& level : levels)
        out << "        \"" << level.name << "\") words=\"" << join(level.words, " ") << "\" ;;\n";
    out << "    esac\n";
    if (!id_commands.empty()) {
        // A sandbox ID: ask the program's own `list`, with the program's
        // options already typed (a namespace, a context) passed on.
        std::string top_values;
        for (const auto& option : levels.front().value_options)
            top_values += (top_values.empty() ? "" : "|") + option;
        out << "    case \"$sub\" in\n"
            << "        " << join(id_commands, "|") << ")\n"
            << "            if [[ \"$cur\" != -* ]]; then\n"
            << "                local pass=()\n";
        if (!top_values.empty())
            out << "                for ((i = 1; i < COMP_CWORD - 1; i++)); do\n"
                << "                    case \"${COMP_WORDS[i]}\" in\n"
                << "                        " << top_values
                << ") pass+=(\"${COMP_WORDS[i]}\" \"${COMP_WORDS[i+1]}\") ;;\n"
                << "                    esac\n"
                << "                done\n";
        out << "                words=\"$words $(\"${COMP_WORDS[0]}\" list \"${pass[@]}\" "
               "2>/dev/null)\"\n"
            << "            fi ;;\n"
            << "    esac\n";
    }
    out << "    COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
        << "}\n"
        << "complete -o default -F " << fn << " " << program << "\n";
    return out.str();
}

void add_bash_completion_flag(CLI::App& app, const std::string& program, std::ostream& out) {
    app.add_flag_callback(
           "--bash-completion",
           [&app, program, &out] {
               out << bash_completion(app, program);
               throw CLI::Success();
           },
           "Print a bash completion script")
        ->group("");
}

} // namespace osf::cli
