#include "local/launch/host_ids.hpp"

#include <sstream>

namespace osf::local {

std::vector<std::pair<unsigned long long, unsigned long long>>
subordinate_ranges(const std::string& text) {
    std::vector<std::pair<unsigned long long, unsigned long long>> ranges;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
        const auto first_colon = line.find(':');
        const auto second_colon = line.find(':', first_colon + 1);
        if (first_colon == std::string::npos || second_colon == std::string::npos) continue;
        try {
            const auto first =
                std::stoull(line.substr(first_colon + 1, second_colon - first_colon - 1));
            const auto count = std::stoull(line.substr(second_colon + 1));
            ranges.emplace_back(first, first + count);
        } catch (const std::exception&) {
        }
    }
    return ranges;
}

std::optional<unsigned> choose_host_id(const std::set<unsigned>& used,
                                       const std::function<bool(unsigned)>& belongs_to_someone) {
    for (unsigned id = kHostIdFirst; id < kHostIdFirst + kHostIdCount; ++id)
        if (!used.count(id) && !belongs_to_someone(id)) return id;
    return std::nullopt;
}

} // namespace osf::local
