// The rules of one `egress` entry written as an object: which requests to its
// host are allowed, by method, normalised path and query. Compiled once when
// the policy is built; deciding is pure (request facts in, verdict out).
#pragma once

#include "osf/log_fields.hpp"
#include "osf/spec.hpp"

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace osf::policy {

struct RuleVerdict {
    bool allowed = false;
    std::optional<RefusalReason> refused_by; // method-not-allowed or path-not-allowed
    int index = -1;        // the rule that decided; -1 when none did (no match, unreadable path)
    std::string_view rule; // its short name ("read-widgets", "api.github.com#0"), or
                           // "<entry>#none" (no rule matched), "<entry>#path" (unreadable)
    std::string detail;    // refusals only: the 403's words for the agent and the operator
};

class RequestRules {
public:
    // `audit`: the spec's own mode is audit (an entry's own mode wins).
    explicit RequestRules(const osf::EgressRule& entry, bool audit = false);

    // `target` is the origin form ("/path?query"), fragment-free; `method` as sent.
    RuleVerdict decide(std::string_view method, std::string_view target) const;

    const std::string& entry_name() const { return entry_name_; }
    // In audit mode a refusal is not enforced: the request goes on, its line
    // says what would have refused it.
    bool audit() const { return audit_; }

private:
    struct PathPattern {
        std::vector<std::string> segments; // "*": any one segment
        bool below = false;                // written with a last "/*": every path below
        bool trailing_slash = false;       // written ending in '/'
    };
    struct Rule {
        std::vector<std::string> methods; // empty: any
        bool read_only = false;
        std::vector<PathPattern> paths; // empty: any
        std::vector<std::pair<std::string, std::string>> query;
        bool allow = true;
        std::string name;
        std::string reason;
        std::string written; // methods and paths in words, for refusals
    };

    static bool path_matches(const PathPattern& pattern,
                             const std::vector<std::string_view>& segments, bool trailing_slash,
                             bool lenient);
    static bool query_matches(const Rule& rule, std::string_view query);
    std::string refusal(const Rule* rule, std::string_view method, std::string_view path,
                        std::string_view why) const;

    // Which rules can match a path, by its first segment: an allow rule whose every
    // pattern starts with a literal segment can match only a path starting with one of
    // them, so a request looks at those and at the rest (rules with no path, deny rules,
    // patterns starting with "*" or empty), in the rules' order. Fifty rules for fifty
    // repositories then cost one lookup, not fifty comparisons.
    struct SegmentHash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const {
            return std::hash<std::string_view>{}(s);
        }
    };
    std::unordered_map<std::string, std::vector<std::size_t>, SegmentHash, std::equal_to<>>
        by_first_segment_;
    std::vector<std::size_t> any_first_segment_;

    std::string entry_name_; // "host[:port]"
    std::string reason_;     // the entry's `reason`
    bool audit_ = false;
    std::vector<Rule> rules_;
    std::string none_name_, path_name_;
};

// Why a request path (up to '?') cannot be matched against rules because
// origin servers may read it in more than one way, or empty: every reason of
// ambiguous_path() (encoded '/', '\\', '%', control characters, '//', bad
// UTF-8) and a dot segment written otherwise than "." or ".." ("%2e%2e",
// "..;x", "...": some servers resolve it, the rules would not).
std::string_view unreadable_path(std::string_view path);

} // namespace osf::policy
