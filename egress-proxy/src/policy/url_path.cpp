#include "policy/url_path.hpp"

#include "text/ascii.hpp"
#include "text/utf8.hpp"

#include <vector>

namespace osf::policy {
namespace {

using text::hex_value;

bool is_unreserved(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '.' || c == '_' || c == '~';
}

std::string decode_unreserved(std::string_view path) {
    std::string out;
    out.reserve(path.size());
    for (std::size_t i = 0; i < path.size(); ++i) {
        char c = path[i];
        if (c == '%' && i + 2 < path.size() && hex_value(path[i + 1]) >= 0 &&
            hex_value(path[i + 2]) >= 0) {
            char decoded = static_cast<char>(hex_value(path[i + 1]) * 16 + hex_value(path[i + 2]));
            if (is_unreserved(decoded)) {
                out.push_back(decoded);
            } else {
                static constexpr char digits[] = "0123456789ABCDEF";
                auto byte = static_cast<unsigned char>(decoded);
                out.push_back('%');
                out.push_back(digits[byte >> 4]);
                out.push_back(digits[byte & 0xf]);
            }
            i += 2;
        } else {
            out.push_back(c);
        }
    }
    return out;
}

} // namespace

std::string normalize_path(std::string_view path) {
    path = path.substr(0, path.find_first_of("?#"));
    std::string decoded = decode_unreserved(path);

    std::vector<std::string_view> segments;
    std::string_view rest = decoded;
    while (!rest.empty()) {
        std::size_t slash = rest.find('/');
        std::string_view segment = rest.substr(0, slash);
        rest = slash == std::string_view::npos ? std::string_view{} : rest.substr(slash + 1);
        if (segment == "..") {
            if (!segments.empty()) segments.pop_back();
        } else if (segment != "." && !segment.empty()) {
            segments.push_back(segment);
        }
    }
    std::string_view d = decoded;
    bool trailing_slash = d.ends_with('/') || d.ends_with("/.") || d.ends_with("/..");
    std::string out;
    for (std::string_view segment : segments) {
        out.push_back('/');
        out.append(segment);
    }
    if (out.empty() || trailing_slash) out.push_back('/');
    return out;
}

namespace {

// Drops the ";parameters" of every segment ("/mcp;x=1" -> "/mcp", "/..;/" -> "/../"),
// as servlet containers do before they route.
std::string without_segment_parameters(std::string_view path) {
    path = path.substr(0, path.find_first_of("?#"));
    std::string out;
    out.reserve(path.size());
    bool in_parameters = false;
    for (char c : path) {
        if (c == '/') in_parameters = false;
        if (c == ';') in_parameters = true;
        if (!in_parameters) out.push_back(c);
    }
    return out;
}

bool normalized_is_under(std::string_view path, std::string_view prefix) {
    std::string p = normalize_path(path);
    std::string base = normalize_path(prefix);
    if (base.size() > 1 && base.back() == '/') base.pop_back();
    if (base == "/") return true;
    if (p.size() < base.size()) return false;
    for (std::size_t i = 0; i < base.size(); ++i)
        if (text::lower(p[i]) != text::lower(base[i])) return false;
    return p.size() == base.size() || p[base.size()] == '/';
}

// Every escape decoded, whatever byte it stands for, up to an encoded NUL,
// and '\\' read as '/'.
std::string fully_decoded(std::string_view path) {
    std::string out;
    out.reserve(path.size());
    for (std::size_t i = 0; i < path.size(); ++i) {
        char c = path[i];
        if (c == '%' && i + 2 < path.size() && hex_value(path[i + 1]) >= 0 &&
            hex_value(path[i + 2]) >= 0) {
            c = static_cast<char>(hex_value(path[i + 1]) * 16 + hex_value(path[i + 2]));
            i += 2;
            if (c == '\0') break; // a server in C reads up to the NUL
        }
        out.push_back(c == '\\' ? '/' : c);
    }
    return out;
}

// "/mcp./x " -> "/mcp/x": trailing dots and spaces of each segment dropped
// ("." and ".." segments kept).
std::string without_trailing_dots(std::string_view path) {
    std::string out;
    out.reserve(path.size());
    std::size_t start = 0;
    while (start <= path.size()) {
        const auto slash = path.find('/', start);
        const auto end = slash == std::string_view::npos ? path.size() : slash;
        std::string_view segment = path.substr(start, end - start);
        if (segment != "." && segment != "..")
            while (!segment.empty() && (segment.back() == '.' || segment.back() == ' '))
                segment.remove_suffix(1);
        out.append(segment);
        if (slash == std::string_view::npos) break;
        out.push_back('/');
        start = slash + 1;
    }
    return out;
}

// "//host/mcp" read as a network-path reference: the path after the authority.
std::string without_authority(std::string_view path) {
    std::size_t start = 0;
    while (start < path.size() && (path[start] == '/' || path[start] == '\\'))
        ++start;
    if (start < 2) return std::string(path);
    const auto slash = path.find_first_of("/\\", start);
    return slash == std::string_view::npos ? std::string("/") : std::string(path.substr(slash));
}

} // namespace

// Under every reading (see the header): taking a request for MCP traffic by
// mistake fails closed, the reverse fails open.
bool path_is_under(std::string_view path, std::string_view prefix) {
    path = path.substr(0, path.find_first_of("?#"));
    for (const std::string& written :
         {std::string(path), without_segment_parameters(path), without_authority(path)}) {
        if (normalized_is_under(written, prefix)) return true;
        const std::string decoded = fully_decoded(written);
        if (normalized_is_under(decoded, prefix) ||
            normalized_is_under(without_segment_parameters(decoded), prefix) ||
            normalized_is_under(without_trailing_dots(decoded), prefix) ||
            normalized_is_under(without_trailing_dots(without_segment_parameters(decoded)), prefix))
            return true;
    }
    return false;
}

std::string_view ambiguous_path(std::string_view path) {
    // "//x/mcp" is a network-path reference (RFC 3986 4.2): WHATWG's URL with a
    // base, Node's and Python's parsers read "x" as a host and route on "/mcp";
    // an empty segment anywhere ("/.//x/mcp" resolves to "//x/mcp") is the same.
    if (path.find("//") != std::string_view::npos)
        return "an empty path segment ('//': URL parsers may read what follows as a host)";
    for (std::size_t i = 0; i < path.size(); ++i) {
        const auto c = static_cast<unsigned char>(path[i]);
        if (c == '#') return "a fragment ('#') in the request target";
        if (c == '\\') return "a backslash in the path";
        if (c < 0x20 || c == 0x7f) return "a control character in the path";
        if (c != '%') continue;
        if (i + 2 >= path.size() || hex_value(path[i + 1]) < 0 || hex_value(path[i + 2]) < 0)
            return "a '%' that is not an escape in the path";
        const auto byte =
            static_cast<unsigned char>(hex_value(path[i + 1]) * 16 + hex_value(path[i + 2]));
        if (byte == '/') return "an encoded '/' in the path";
        if (byte == '\\') return "an encoded backslash in the path";
        if (byte == '%') return "an encoded '%' in the path";
        if (byte < 0x20 || byte == 0x7f) return "an encoded control character (NUL...) in the path";
    }
    // Overlong or broken UTF-8 ("%c0%af" is '/' to some old decoders).
    const std::string decoded = fully_decoded(path);
    const char* end = decoded.data() + decoded.size();
    for (const char* p = decoded.data(); p < end;) {
        if (static_cast<unsigned char>(*p) < 0x80) {
            ++p;
            continue;
        }
        const auto length = text::utf8_sequence_length(p, end);
        if (length == 0) return "a byte sequence in the path that is not UTF-8";
        p += length;
    }
    return {};
}

} // namespace osf::policy
