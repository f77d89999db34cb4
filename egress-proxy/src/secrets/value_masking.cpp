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

std::string mask_forms(std::string_view text, std::span<const EchoForm> forms,
                       std::vector<std::string>& found) {
    std::vector<const EchoForm*> longest_first;
    for (const auto& form : forms)
        if (!form.real.empty() && text.find(form.real) != std::string_view::npos)
            longest_first.push_back(&form);
    if (longest_first.empty()) return std::string(text); // the common case: nothing echoed
    std::stable_sort(
        longest_first.begin(), longest_first.end(),
        [](const EchoForm* a, const EchoForm* b) { return a->real.size() > b->real.size(); });
    std::string out;
    std::size_t i = 0;
    while (i < text.size()) {
        const auto match =
            std::find_if(longest_first.begin(), longest_first.end(), [&](const EchoForm* form) {
                return text.substr(i).starts_with(form->real);
            });
        if (match == longest_first.end()) {
            out += text[i++];
            continue;
        }
        out += (*match)->shown;
        found.push_back((*match)->name);
        i += (*match)->real.size();
    }
    return out;
}

bool contains_form(std::string_view text, std::span<const EchoForm> forms) {
    auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
    for (const auto& form : forms) {
        const std::string_view real = form.real;
        if (real.empty() || real.size() > text.size()) continue;
        for (std::size_t i = 0; i + real.size() <= text.size(); ++i) {
            std::size_t k = 0;
            while (k < real.size() && lower(text[i + k]) == lower(real[k]))
                ++k;
            if (k == real.size()) return true;
        }
    }
    return false;
}

std::string percent_encode(std::string_view text) {
    static constexpr char digits[] = "0123456789ABCDEF";
    std::string out;
    for (const char c : text) {
        const bool unreserved = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                                (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' ||
                                c == '~';
        if (unreserved) {
            out += c;
        } else {
            const auto byte = static_cast<unsigned char>(c);
            out += '%';
            out += digits[byte >> 4];
            out += digits[byte & 0xf];
        }
    }
    return out;
}

} // namespace osf::secrets
