#include "secrets/value_masking.hpp"

#include "secrets/secret_store.hpp"

#include <algorithm>

namespace osf::secrets {

std::string mask_values(std::string_view text, std::span<const Secret> secrets, Mask mask,
                        std::vector<std::string>& found) {
    std::vector<const Secret*> longest_first;
    for (const auto& secret : secrets)
        if (!secret.value.empty()) longest_first.push_back(&secret);
    std::stable_sort(
        longest_first.begin(), longest_first.end(),
        [](const Secret* a, const Secret* b) { return a->value.size() > b->value.size(); });

    std::string out;
    std::size_t i = 0;
    while (i < text.size()) {
        const auto match =
            std::find_if(longest_first.begin(), longest_first.end(), [&](const Secret* secret) {
                return text.substr(i).starts_with(secret->value);
            });
        if (match == longest_first.end()) {
            out += text[i++];
            continue;
        }
        out += mask == Mask::Redacted ? std::string("[redacted]") : (*match)->placeholder;
        found.push_back((*match)->name);
        i += (*match)->value.size();
    }
    return out;
}

} // namespace osf::secrets
