#include "egress_log/report_escaping.hpp"

#include "egress_log/log_summary.hpp"

#include <algorithm>

namespace osf::egress_log {

namespace {

void escape_into(std::string& out, std::string_view text, bool quotes) {
    out.reserve(out.size() + text.size());
    for (const char c : text) {
        switch (c) {
        case '&':
            out += "&amp;";
            break;
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        case '"':
            out += quotes ? "&quot;" : "\"";
            break;
        case '\'':
            out += quotes ? "&#39;" : "'";
            break;
        default:
            out += c;
        }
    }
}

// Where the escape display_label() wrote at `shown[i]` ends (`\"`, `\\`,
// `\xNN`, `\u{X}`); i + 1 for any other character.
std::size_t escape_end(std::string_view shown, std::size_t i) {
    if (shown[i] != '\\' || i + 1 >= shown.size()) return i + 1;
    switch (shown[i + 1]) {
    case 'x':
        return std::min(shown.size(), i + 4);
    case 'u': {
        const auto close = shown.find('}', i);
        return close == std::string_view::npos ? shown.size() : close + 1;
    }
    default:
        return i + 2;
    }
}

} // namespace

std::string escape_text(std::string_view text) {
    std::string out;
    escape_into(out, text, false);
    return out;
}

std::string escape_attribute(std::string_view text) {
    std::string out;
    escape_into(out, text, true);
    return out;
}

std::string shown_name(std::string_view name, std::size_t max_chars) {
    std::string shown = egress_log::display_label(name);
    if (shown.size() <= max_chars) return shown;
    std::size_t cut = 0;
    for (std::size_t next = 0; (next = escape_end(shown, cut)) <= max_chars;)
        cut = next;
    shown.resize(cut);
    return shown + "\xe2\x80\xa6 (" + std::to_string(name.size()) + " bytes)";
}

std::string shown_host(std::string_view host, std::size_t max_chars) {
    return host.empty() ? "(no host)" : shown_name(host, max_chars);
}

std::string visible_line(std::string_view line, std::size_t max_bytes) {
    const std::string_view kept = line.substr(0, std::min(line.size(), max_bytes));
    std::string out;
    out.reserve(kept.size());
    for (std::size_t i = 0; i < kept.size();) {
        const auto c = static_cast<unsigned char>(kept[i]);
        if (c >= 0x20 && c < 0x7f) {
            out += kept[i++];
            continue;
        }
        // display_label() escapes exactly these; its quotes are dropped.
        std::size_t length = 1;
        if (c >= 0x80)
            while (length < 4 && i + length < kept.size() &&
                   (static_cast<unsigned char>(kept[i + length]) & 0xc0) == 0x80)
                ++length;
        const std::string label = egress_log::display_label(kept.substr(i, length));
        out.append(label, 1, label.size() - 2);
        i += length;
    }
    if (kept.size() < line.size())
        out += "\xe2\x80\xa6 (" + std::to_string(line.size()) + " bytes)";
    return out;
}

std::string shown_source(std::string_view name) {
    const bool printable = std::all_of(name.begin(), name.end(), [](char c) {
        return static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7f;
    });
    return printable ? std::string(name) : egress_log::display_label(name);
}

} // namespace osf::egress_log
