#include "policy/request_rules.hpp"

#include "policy/url_path.hpp"
#include "text/ascii.hpp"

#include <algorithm>
#include <optional>

namespace osf::policy {

namespace {

std::string percent_decoded(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '%' && i + 2 < text.size() && text::hex_value(text[i + 1]) >= 0 &&
            text::hex_value(text[i + 2]) >= 0) {
            out.push_back(static_cast<char>(text::hex_value(text[i + 1]) * 16 +
                                            text::hex_value(text[i + 2])));
            i += 2;
        } else {
            out.push_back(text[i]);
        }
    }
    return out;
}

// "/a/b/" -> {"a", "b"}, trailing slash; "/" -> {}, trailing slash.
std::vector<std::string_view> split_segments(std::string_view path, bool& trailing_slash) {
    std::vector<std::string_view> segments;
    trailing_slash = path.ends_with('/');
    while (!path.empty()) {
        path.remove_prefix(1); // the '/'
        const auto slash = path.find('/');
        const auto segment = path.substr(0, slash);
        if (!segment.empty()) segments.push_back(segment);
        path = slash == std::string_view::npos ? std::string_view() : path.substr(slash);
    }
    return segments;
}

std::string joined(const std::vector<std::string>& items, std::string_view separator) {
    std::string out;
    for (const auto& item : items)
        out.append(out.empty() ? "" : separator).append(item);
    return out;
}

// A segment as the loosest origin reads it: every escape decoded,
// ";parameters" dropped (servlet containers), trailing dots and spaces dropped
// (Windows servers); compared without ASCII case.
std::string loosened(std::string_view segment) {
    std::string out = percent_decoded(segment);
    out.resize(std::min(out.size(), out.find(';')));
    while (!out.empty() && (out.back() == '.' || out.back() == ' '))
        out.pop_back();
    return out;
}

} // namespace

std::string_view unreadable_path(std::string_view path) {
    if (!path.starts_with('/')) return "a request target that is not a path";
    if (const auto why = ambiguous_path(path); !why.empty()) return why;
    std::size_t start = 0;
    while (start < path.size()) {
        const auto slash = path.find('/', start + 1);
        const auto end = slash == std::string_view::npos ? path.size() : slash;
        const std::string_view raw = path.substr(start + 1, end - start - 1);
        std::string decoded = percent_decoded(raw);
        decoded = decoded.substr(0, decoded.find(';')); // "..;x" is ".." to servlet containers
        const bool only_dots_and_spaces =
            !decoded.empty() && decoded.find_first_not_of(". ") == std::string::npos;
        if (only_dots_and_spaces && (decoded.size() > 2 || decoded.find(' ') != std::string::npos))
            return "a segment of dots and spaces other than '.' and '..'";
        if ((decoded == "." || decoded == "..") && raw != decoded)
            return "a dot segment written encoded or with parameters ('%2e', '..;')";
        start = end;
    }
    return {};
}

RequestRules::RequestRules(const osf::EgressRule& entry, bool audit)
    : entry_name_(entry.port ? entry.host + ":" + std::to_string(*entry.port) : entry.host),
      reason_(entry.reason), audit_(entry.audit.value_or(audit)), none_name_(entry_name_ + "#none"),
      path_name_(entry_name_ + "#path") {
    for (const auto& written : entry.rules) {
        Rule rule;
        rule.methods = written.methods;
        rule.read_only = written.read_only;
        rule.query = written.query;
        rule.allow = written.allow;
        rule.name = written.name;
        rule.reason = written.reason;
        for (const auto& text : written.paths) {
            PathPattern pattern;
            bool trailing = false;
            auto segments = split_segments(text, trailing);
            pattern.trailing_slash = trailing; // "/" too: the root is "/" on the wire
            if (!trailing && !segments.empty() && segments.back() == "*") {
                pattern.below = true;
                segments.pop_back();
            }
            for (const auto segment : segments)
                pattern.segments.emplace_back(segment);
            rule.paths.push_back(std::move(pattern));
        }
        rule.written = std::string(rule.allow ? "allow " : "deny ") +
                       (rule.methods.empty() ? std::string("any method")
                        : rule.read_only     ? std::string("read-only (GET, HEAD, OPTIONS)")
                                             : joined(rule.methods, ", ")) +
                       " on " + (written.paths.empty() ? "any path" : joined(written.paths, ", "));
        for (const auto& [name, value] : rule.query)
            rule.written += " with ?" + name + "=" + value;
        // Deny rules match leniently (case, loosened segments): never indexed.
        const bool indexed =
            rule.allow && !rule.paths.empty() &&
            std::all_of(rule.paths.begin(), rule.paths.end(), [](const PathPattern& p) {
                return !p.segments.empty() && p.segments.front() != "*";
            });
        const std::size_t index = rules_.size();
        if (indexed) {
            for (const auto& pattern : rule.paths) {
                auto& at = by_first_segment_[pattern.segments.front()];
                if (at.empty() || at.back() != index) at.push_back(index);
            }
        } else {
            any_first_segment_.push_back(index);
        }
        rules_.push_back(std::move(rule));
    }
}

// Allow rules match exactly; deny rules leniently, on each segment as the
// loosest origin reads it (see loosened()) and with a trailing slash ignored:
// a deny that missed "/Hooks." or "/hooks;x" would fail open.
bool RequestRules::path_matches(const PathPattern& pattern,
                                const std::vector<std::string_view>& segments, bool trailing_slash,
                                bool lenient) {
    const auto n = pattern.segments.size();
    if (pattern.below) {
        if (segments.size() < n || (segments.size() == n && !trailing_slash)) return false;
    } else if (segments.size() != n || (!lenient && trailing_slash != pattern.trailing_slash)) {
        return false;
    }
    for (std::size_t i = 0; i < n; ++i) {
        const auto& want = pattern.segments[i];
        if (want == "*") continue;
        if (lenient ? !text::iequals(want, loosened(segments[i])) : want != segments[i])
            return false;
    }
    return true;
}

// Each named parameter exactly once with exactly that value (decoded): a
// second one is a reading the origin may take instead.
bool RequestRules::query_matches(const Rule& rule, std::string_view query) {
    for (const auto& [name, value] : rule.query) {
        int seen = 0;
        bool equal = false;
        std::string_view rest = query;
        for (;;) {
            const auto amp = rest.find('&');
            const auto pair = rest.substr(0, amp);
            const auto eq = pair.find('=');
            if (percent_decoded(pair.substr(0, eq)) == name) {
                ++seen;
                equal =
                    eq != std::string_view::npos && percent_decoded(pair.substr(eq + 1)) == value;
            }
            if (amp == std::string_view::npos) break;
            rest = rest.substr(amp + 1);
        }
        if (seen != 1 || !equal) return false;
    }
    return true;
}

std::string RequestRules::refusal(const Rule* rule, std::string_view method, std::string_view path,
                                  std::string_view why) const {
    std::string out(method);
    out.append(" ").append(path).append(" ").append(why);
    const std::string& reason = rule && !rule->reason.empty() ? rule->reason : reason_;
    if (!reason.empty()) out.append(" (").append(reason).append(")");
    out.append(". An operator can widen this host's rules with the CLI's allow command and the "
               "entry rewritten: allow <sandbox ID> '{\"host\": \"")
        .append(entry_name_)
        .append("\", \"rules\": [...]}'");
    return out;
}

RuleVerdict RequestRules::decide(std::string_view method, std::string_view target) const {
    const auto question = target.find('?');
    const std::string_view path = target.substr(0, question);
    const std::string_view query =
        question == std::string_view::npos ? std::string_view() : target.substr(question + 1);
    RuleVerdict verdict;
    if (const auto why = unreadable_path(path); !why.empty()) {
        verdict.refused_by = RefusalReason::path_not_allowed;
        verdict.rule = path_name_;
        verdict.detail = refusal(nullptr, method, path,
                                 "is refused: its path holds " + std::string(why) +
                                     ", which servers read in more than one way, so the rules of " +
                                     entry_name_ + " cannot vouch for it");
        return verdict;
    }
    const std::string normal = normalize_path(path);
    bool trailing_slash = false;
    const auto segments = split_segments(normal, trailing_slash);
    // Allow rules whose path matched but not their methods: named in the refusal.
    const Rule* method_only = nullptr;
    std::string other_methods, other_rules;
    // The candidates in the rules' order: those indexed under the path's first
    // segment merged with those any path may match (every rule for the root).
    static const std::vector<std::size_t> none;
    const std::vector<std::size_t>* named = &none;
    if (!segments.empty()) {
        if (const auto it = by_first_segment_.find(segments.front()); it != by_first_segment_.end())
            named = &it->second;
    }
    std::size_t next_named = 0, next_any = 0, next_all = 0;
    const auto next_candidate = [&]() -> std::optional<std::size_t> {
        if (segments.empty()) {
            if (next_all < rules_.size()) return next_all++;
            return std::nullopt;
        }
        const bool has_named = next_named < named->size();
        const bool has_any = next_any < any_first_segment_.size();
        if (has_named && (!has_any || (*named)[next_named] < any_first_segment_[next_any]))
            return (*named)[next_named++];
        if (has_any) return any_first_segment_[next_any++];
        return std::nullopt;
    };
    while (const auto candidate = next_candidate()) {
        const std::size_t i = *candidate;
        const Rule& rule = rules_[i];
        const bool lenient = !rule.allow;
        if (!rule.paths.empty() &&
            std::none_of(rule.paths.begin(), rule.paths.end(), [&](const PathPattern& p) {
                return path_matches(p, segments, trailing_slash, lenient);
            }))
            continue;
        if (!rule.query.empty() && !query_matches(rule, query)) continue;
        if (!rule.methods.empty() &&
            std::none_of(rule.methods.begin(), rule.methods.end(), [&](const std::string& m) {
                return lenient ? text::iequals(m, method) : m == method;
            })) {
            if (rule.allow) {
                if (!method_only) method_only = &rule;
                for (const auto& m : rule.methods)
                    if (other_methods.find(m) == std::string::npos)
                        other_methods.append(other_methods.empty() ? "" : ", ").append(m);
                other_rules.append(other_rules.empty() ? "\"" : ", \"").append(rule.name) += '"';
            }
            continue;
        }
        verdict.index = static_cast<int>(i);
        verdict.rule = rule.name;
        if (rule.allow) {
            verdict.allowed = true;
            return verdict;
        }
        verdict.refused_by = rule.methods.empty() ? RefusalReason::path_not_allowed
                                                  : RefusalReason::method_not_allowed;
        verdict.detail = refusal(&rule, method, normal,
                                 "is refused by rule \"" + rule.name + "\" of " + entry_name_ +
                                     " (" + rule.written + ")");
        return verdict;
    }
    verdict.rule = none_name_;
    if (method_only) {
        verdict.refused_by = RefusalReason::method_not_allowed;
        verdict.detail =
            refusal(method_only, method, normal,
                    "is refused: on " + entry_name_ + " this path is allowed only for " +
                        other_methods + " (rules " + other_rules + ")");
    } else {
        verdict.refused_by = RefusalReason::path_not_allowed;
        verdict.detail =
            refusal(nullptr, method, normal,
                    "is refused: none of the " + std::to_string(rules_.size()) + " rules of " +
                        entry_name_ + " matches it (a request no rule allows is refused)");
    }
    return verdict;
}

} // namespace osf::policy
