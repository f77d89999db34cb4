#include "sandbox/label_selector.hpp"

#include "osf/label_syntax.hpp"

#include <string_view>

namespace osf::sandbox {

namespace {

std::string trimmed(std::string_view text) {
    const auto first = text.find_first_not_of(" \t");
    if (first == std::string_view::npos) return "";
    const auto last = text.find_last_not_of(" \t");
    return std::string(text.substr(first, last - first + 1));
}

std::variant<LabelRequirement, std::string> parse_requirement(const std::string& part) {
    LabelRequirement requirement;
    std::string key;
    if (const auto at = part.find("!="); at != std::string::npos) {
        requirement.op = LabelRequirement::Op::not_equals;
        key = trimmed(std::string_view(part).substr(0, at));
        requirement.value = trimmed(std::string_view(part).substr(at + 2));
    } else if (const auto eq = part.find('='); eq != std::string::npos) {
        const bool doubled = part.compare(eq, 2, "==") == 0;
        key = trimmed(std::string_view(part).substr(0, eq));
        requirement.value = trimmed(std::string_view(part).substr(eq + (doubled ? 2 : 1)));
    } else if (!part.empty() && part.front() == '!') {
        requirement.op = LabelRequirement::Op::not_exists;
        key = trimmed(std::string_view(part).substr(1));
    } else {
        requirement.op = LabelRequirement::Op::exists;
        key = part;
    }
    if (key.find(' ') != std::string::npos || key.find('(') != std::string::npos)
        return "'" + part + "': only equality-based selectors (k=v, k!=v, k, !k) are supported";
    if (const auto problem = label_key_problem(key)) return *problem;
    if (const auto problem = label_value_problem(key, requirement.value)) return *problem;
    requirement.key = key;
    return requirement;
}

} // namespace

std::variant<LabelSelector, std::string> parse_label_selector(const std::string& text) {
    LabelSelector selector;
    if (trimmed(text).empty()) return selector;
    std::size_t start = 0;
    while (start <= text.size()) {
        const auto comma = std::min(text.find(',', start), text.size());
        const std::string part = trimmed(std::string_view(text).substr(start, comma - start));
        if (part.empty()) return std::string("the label selector '") + text + "' has an empty part";
        auto requirement = parse_requirement(part);
        if (auto* problem = std::get_if<std::string>(&requirement))
            return "the label selector '" + text + "': " + *problem;
        selector.push_back(std::get<LabelRequirement>(std::move(requirement)));
        start = comma + 1;
    }
    return selector;
}

bool selector_matches(const LabelSelector& selector,
                      const std::map<std::string, std::string>& labels) {
    for (const auto& requirement : selector) {
        const auto found = labels.find(requirement.key);
        const bool present = found != labels.end();
        switch (requirement.op) {
        case LabelRequirement::Op::equals:
            if (!present || found->second != requirement.value) return false;
            break;
        case LabelRequirement::Op::not_equals:
            if (present && found->second == requirement.value) return false;
            break;
        case LabelRequirement::Op::exists:
            if (!present) return false;
            break;
        case LabelRequirement::Op::not_exists:
            if (present) return false;
            break;
        }
    }
    return true;
}

} // namespace osf::sandbox
