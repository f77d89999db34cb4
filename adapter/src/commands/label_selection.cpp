#include "commands/label_selection.hpp"

#include "commands/command_errors.hpp"
#include "osf/label_syntax.hpp"

namespace osf::commands {

sandbox::LabelSelector selector_option(const std::string& text) {
    auto parsed = sandbox::parse_label_selector(text);
    if (const auto* problem = std::get_if<std::string>(&parsed)) throw UsageError(*problem);
    return std::get<sandbox::LabelSelector>(std::move(parsed));
}

std::set<std::string> selected_ids(sandbox::Backend& backend,
                                   const sandbox::LabelSelector& selector) {
    std::set<std::string> ids;
    for (const auto& row : backend.list(false))
        if (sandbox::selector_matches(selector, row.labels)) ids.insert(row.id);
    return ids;
}

std::map<std::string, std::string> with_label_options(std::map<std::string, std::string> labels,
                                                      const std::vector<std::string>& options) {
    for (const auto& option : options) {
        const auto eq = option.find('=');
        if (eq == std::string::npos)
            throw UsageError("--label takes key=value; got '" + option + "'");
        const std::string key = option.substr(0, eq);
        const std::string value = option.substr(eq + 1);
        if (const auto problem = user_label_problem(key, value))
            throw UsageError("--label: " + *problem);
        labels[key] = value;
    }
    return labels;
}

} // namespace osf::commands
