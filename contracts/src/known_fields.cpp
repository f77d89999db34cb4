#include "json_path.hpp"
#include "spec_sections.hpp"

#include <algorithm>

namespace osf::spec_detail {

namespace {

std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j)
        row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t above = row[j];
            const bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                              std::tolower(static_cast<unsigned char>(b[j - 1]));
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same ? 0 : 1)});
            diagonal = above;
        }
    }
    return row[b.size()];
}

} // namespace

void check_known_fields(const nlohmann::json& object, const std::string& path,
                        const std::vector<std::string>& known, std::string_view what,
                        const SpecCheck& check) {
    for (const auto& [key, value] : object.items()) {
        if (std::find(known.begin(), known.end(), key) != known.end()) continue;
        std::string message = "unknown field: " + std::string(what);
        // A near miss ("egres", "Template", "tool") is most likely a typo.
        // A named copy: clang before 16 cannot capture a structured binding.
        const std::string& name = key;
        const auto closest =
            std::min_element(known.begin(), known.end(), [&](const auto& a, const auto& b) {
                return edit_distance(name, a) < edit_distance(name, b);
            });
        if (closest != known.end() && edit_distance(key, *closest) <= 2 && key.size() > 2)
            message += " (did you mean " + json_quoted(*closest) + "?)";
        check.fail(member_path(path, key), message);
    }
}

} // namespace osf::spec_detail
