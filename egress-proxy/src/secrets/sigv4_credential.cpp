#include "secrets/sigv4_credential.hpp"

#include <algorithm>

namespace osf::secrets::sigv4 {

namespace {

std::string_view trim(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
        text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t'))
        text.remove_suffix(1);
    return text;
}

bool is_word(std::string_view text) {
    return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
    });
}

} // namespace

bool is_signature(std::string_view text) {
    return text.size() == 64 && std::all_of(text.begin(), text.end(), [](char c) {
               return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
           });
}

std::optional<Credential> parse_credential(std::string_view text) {
    std::vector<std::string_view> parts;
    while (true) {
        const auto slash = text.find('/');
        parts.push_back(text.substr(0, slash));
        if (slash == std::string_view::npos) break;
        text.remove_prefix(slash + 1);
    }
    if (parts.size() != 5 || parts[4] != "aws4_request" || parts[0].empty()) return std::nullopt;
    const auto date = parts[1];
    if (date.size() != 8 ||
        !std::all_of(date.begin(), date.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return std::nullopt;
    if (!is_word(parts[2]) || !is_word(parts[3])) return std::nullopt;
    const bool key_ok = std::all_of(parts[0].begin(), parts[0].end(), [](char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    });
    if (!key_ok) return std::nullopt;
    return Credential{std::string(parts[0]),
                      Scope{std::string(date), std::string(parts[2]), std::string(parts[3])}};
}

bool is_sigv4_authorization(std::string_view value) {
    value = trim(value);
    return value.starts_with(algorithm) &&
           (value.size() == algorithm.size() || value[algorithm.size()] == ' ');
}

std::optional<AuthorizationHeader> parse_authorization(std::string_view value) {
    value = trim(value);
    if (!is_sigv4_authorization(value)) return std::nullopt;
    value.remove_prefix(algorithm.size());
    AuthorizationHeader out;
    bool credential = false, headers = false, signature = false;
    while (!value.empty()) {
        const auto comma = value.find(',');
        const auto part = trim(value.substr(0, comma));
        value = comma == std::string_view::npos ? std::string_view() : value.substr(comma + 1);
        const auto eq = part.find('=');
        if (eq == std::string_view::npos) return std::nullopt;
        const auto name = part.substr(0, eq);
        const auto text = part.substr(eq + 1);
        if (name == "Credential" && !credential) {
            auto parsed = parse_credential(text);
            if (!parsed) return std::nullopt;
            out.credential = std::move(*parsed);
            credential = true;
        } else if (name == "SignedHeaders" && !headers) {
            out.signed_headers_text = std::string(text);
            std::string_view rest = text;
            while (true) {
                const auto semi = rest.find(';');
                const auto header = rest.substr(0, semi);
                if (header.empty() || std::any_of(header.begin(), header.end(), [](char c) {
                        return (c >= 'A' && c <= 'Z') || c <= ' ';
                    }))
                    return std::nullopt;
                out.signed_headers.emplace_back(header);
                if (semi == std::string_view::npos) break;
                rest.remove_prefix(semi + 1);
            }
            if (!std::is_sorted(out.signed_headers.begin(), out.signed_headers.end()))
                return std::nullopt;
            headers = true;
        } else if (name == "Signature" && !signature) {
            if (!is_signature(text)) return std::nullopt;
            out.signature = std::string(text);
            signature = true;
        } else {
            return std::nullopt;
        }
    }
    if (!credential || !headers || !signature) return std::nullopt;
    return out;
}

std::optional<std::string> query_parameter(std::string_view query, std::string_view name,
                                           std::size_t* count) {
    std::optional<std::string> found;
    std::size_t seen = 0;
    while (!query.empty()) {
        const auto amp = query.find('&');
        const auto pair = query.substr(0, amp);
        query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
        const auto eq = pair.find('=');
        if (percent_decode(pair.substr(0, eq)) != name) continue;
        ++seen;
        if (!found)
            found =
                eq == std::string_view::npos ? std::string() : percent_decode(pair.substr(eq + 1));
    }
    if (count) *count = seen;
    return found;
}

std::string replace_query_values(std::string_view query,
                                 const std::vector<std::pair<std::string, std::string>>& values) {
    std::string out;
    bool first = true;
    while (true) {
        const auto amp = query.find('&');
        const auto pair = query.substr(0, amp);
        if (!first) out += '&';
        first = false;
        const auto eq = pair.find('=');
        const std::string name = percent_decode(pair.substr(0, eq));
        const auto found = std::find_if(values.begin(), values.end(),
                                        [&](const auto& v) { return v.first == name; });
        if (found == values.end()) {
            out += pair;
        } else {
            out += pair.substr(0, eq);
            out += '=';
            out += uri_encode(found->second, false);
        }
        if (amp == std::string_view::npos) break;
        query.remove_prefix(amp + 1);
    }
    return out;
}

} // namespace osf::secrets::sigv4
