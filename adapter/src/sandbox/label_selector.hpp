// `-l` of list, destroy and gc: which sandboxes a label selector picks, by the
// user's labels of each (SandboxRow::labels). Equality-based requirements as
// kubectl takes them, comma-separated, all of which must hold: key=value,
// key==value, key!=value (true when the key is absent too), key (present),
// !key (absent). Set-based ones (in, notin) are refused.
#pragma once

#include <map>
#include <string>
#include <variant>
#include <vector>

namespace osf::sandbox {

struct LabelRequirement {
    enum class Op { equals, not_equals, exists, not_exists };
    std::string key;
    Op op = Op::equals;
    std::string value;
};

using LabelSelector = std::vector<LabelRequirement>;

// The selector, or why it is not one (a one-line message for exit 2). An
// empty text selects everything.
std::variant<LabelSelector, std::string> parse_label_selector(const std::string& text);

bool selector_matches(const LabelSelector& selector,
                      const std::map<std::string, std::string>& labels);

} // namespace osf::sandbox
