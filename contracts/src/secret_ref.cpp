#include "secret_ref.hpp"

#include "ascii.hpp"
#include "json_path.hpp"

#include <algorithm>

namespace osf::spec_detail {

namespace {

// The characters of a file name or an OpenBao path segment.
bool is_segment_char(char c) {
    return is_upper(c) || is_lower(c) || is_digit(c) || c == '.' || c == '_' || c == '-';
}

constexpr std::string_view forms =
    "write \"ref:env/<NAME>\", \"ref:file/<name>\" or \"ref:openbao/<path>\"";

// Completes "the reference has ...": one file name or path segment.
std::optional<std::string> segment_problem(std::string_view segment, std::string_view what) {
    if (segment.empty()) return "has an empty " + std::string(what);
    if (segment == "." || segment == "..")
        return "has " + std::string(what) + " " + json_quoted(segment) +
               ", which would leave its directory";
    for (const char c : segment)
        if (!is_segment_char(c))
            return "has " + std::string(what) + " " + json_quoted(segment) +
                   " with a character other than letters, digits, '.', '_' and '-'";
    return std::nullopt;
}

std::variant<SecretRef, std::string> file_ref(std::string_view name, std::string_view text) {
    if (name.find('/') != std::string_view::npos)
        return "names a file in a subdirectory: ref:file/ takes a file name in OSF_SECRETS_DIR, "
               "without '/'";
    if (auto problem = segment_problem(name, "file name")) return *problem;
    if (name.size() > max_secret_file_name_length)
        return "has a file name longer than 255 characters";
    return SecretRef{SecretRef::Kind::File, std::string(name), std::string(text)};
}

std::variant<SecretRef, std::string> env_ref(std::string_view name, std::string_view text) {
    if (!is_secret_name(name))
        return "names variable " + json_quoted(name) +
               ", which is not upper-case letters, digits and '_' (not starting with a digit), "
               "as \"ref:env/" +
               suggest_secret_name(name) + "\"";
    return SecretRef{SecretRef::Kind::Env, std::string(name), std::string(text)};
}

std::variant<SecretRef, std::string> openbao_ref(std::string_view path, std::string_view text) {
    if (path.empty()) return "has an empty OpenBao path, as in \"ref:openbao/ci/npm-token\"";
    if (path.front() == '/' || path.back() == '/')
        return "has an OpenBao path that starts or ends with '/'; write \"ref:openbao/a/b\"";
    std::size_t start = 0;
    while (true) {
        const auto slash = path.find('/', start);
        const auto segment =
            path.substr(start, slash == std::string_view::npos ? slash : slash - start);
        if (auto problem = segment_problem(segment, "OpenBao path segment")) return *problem;
        if (slash == std::string_view::npos) break;
        start = slash + 1;
    }
    return SecretRef{SecretRef::Kind::OpenBao, std::string(path), std::string(text)};
}

} // namespace

std::variant<SecretRef, std::string> check_secret_ref(std::string_view text) {
    if (!text.starts_with("ref:"))
        return "is not a secret reference (the spec names where a secret is, never its value): " +
               std::string(forms);
    if (text.size() > max_secret_ref_length) return "is longer than 1024 characters";
    const auto rest = text.substr(4);
    if (rest.starts_with("file/")) return file_ref(rest.substr(5), text);
    if (rest.starts_with("env/")) return env_ref(rest.substr(4), text);
    if (rest.starts_with("openbao/")) return openbao_ref(rest.substr(8), text);
    const auto kind = rest.substr(0, std::min(rest.find('/'), std::size_t{24}));
    return "has unknown kind " + json_quoted(kind) + ": " + std::string(forms);
}

bool is_secret_name(std::string_view name) {
    if (name.empty() || is_digit(name.front())) return false;
    return std::all_of(name.begin(), name.end(),
                       [](char c) { return is_upper(c) || is_digit(c) || c == '_'; });
}

bool is_env_name(std::string_view name) {
    if (name.empty() || is_digit(name.front())) return false;
    return std::all_of(name.begin(), name.end(), [](char c) {
        return is_upper(c) || is_lower(c) || is_digit(c) || c == '_';
    });
}

std::string suggest_secret_name(std::string_view name) {
    std::string out;
    for (const char c : name) {
        if (is_lower(c))
            out += static_cast<char>(c - 'a' + 'A');
        else if (is_upper(c) || is_digit(c))
            out += c;
        else
            out += '_';
    }
    if (out.empty() || is_digit(out.front())) out.insert(0, "_");
    return out;
}

} // namespace osf::spec_detail
