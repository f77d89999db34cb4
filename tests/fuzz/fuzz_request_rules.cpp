// Fuzz target: egress rules per method, path and query. The input is a request
// (a method picked by the first byte, the rest a request target) judged by a
// fixed entry with rules. Promises checked: a verdict is whole (allowed iff no
// refusal reason, a refusal has words and never the query), deciding twice
// gives the same verdict, normalising a readable path is idempotent, and an
// allowed request has no reading an origin server may take (fully decoded,
// '\\' as '/', ";parameters" dropped, trailing dots dropped, "//host" read as
// an authority) that reaches outside the repository the rules allow or into
// the hooks they deny.
#include "fuzz_check.hpp"
#include "osf/spec.hpp"
#include "policy/request_rules.hpp"
#include "policy/url_path.hpp"

#include <array>

namespace {

constexpr std::string_view spec_text = R"({"egress": [{"host": "api.example.com", "rules": [
    {"name": "no-hooks", "paths": ["/repos/*/*/hooks", "/repos/*/*/hooks/*"], "deny": true},
    {"name": "read", "methods": "read-only",
     "paths": ["/repos/acme/widgets", "/repos/acme/widgets/*"], "allow": true},
    {"name": "comment", "methods": ["POST"], "paths": ["/repos/acme/widgets/issues/*/comments"],
     "allow": true},
    {"name": "refs", "methods": ["GET"], "paths": ["/acme/widgets.git/info/refs"],
     "query": {"service": "git-upload-pack"}, "allow": true}]}]})";

const osf::policy::RequestRules& rules() {
    static const osf::policy::RequestRules r = [] {
        auto result = osf::parse_spec(spec_text);
        if (!result.spec)
            osf::fuzz::invariant_failed("the fixed spec is valid", __FILE__, __LINE__);
        return osf::policy::RequestRules(result.spec->egress.front());
    }();
    return r;
}

constexpr std::array<std::string_view, 8> methods = {"GET",    "HEAD", "OPTIONS", "POST",
                                                     "DELETE", "PUT",  "get",     "PATCH"};

bool same(const osf::policy::RuleVerdict& a, const osf::policy::RuleVerdict& b) {
    return a.allowed == b.allowed && a.refused_by == b.refused_by && a.index == b.index &&
           a.rule == b.rule && a.detail == b.detail;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const auto method = methods[data[0] % methods.size()];
    auto target = osf::fuzz::as_text(data + 1, size - 1);
    target = target.substr(0, target.find_first_of("#\r\n"));
    const auto verdict = rules().decide(method, target);
    OSF_FUZZ_CHECK(same(verdict, rules().decide(method, target)));
    OSF_FUZZ_CHECK(verdict.allowed != verdict.refused_by.has_value());
    OSF_FUZZ_CHECK(!verdict.rule.empty());
    OSF_FUZZ_CHECK(verdict.index >= -1 && verdict.index < 4);
    OSF_FUZZ_CHECK(verdict.allowed == verdict.detail.empty());
    OSF_FUZZ_CHECK(verdict.allowed ? verdict.index >= 1 : verdict.index != 1 && verdict.index != 2);

    const auto question = target.find('?');
    const auto path = target.substr(0, question);
    // On a path with one reading, normalising is idempotent (a stray '%', which a
    // decoded byte could turn into an escape, is unreadable).
    const auto normal = osf::policy::normalize_path(path);
    if (osf::policy::unreadable_path(path).empty())
        OSF_FUZZ_CHECK(osf::policy::normalize_path(normal) == normal);
    if (!verdict.allowed) {
        // The words never carry the query (it may hold a token).
        if (question != std::string_view::npos && target.size() - question > 8)
            OSF_FUZZ_CHECK(verdict.detail.find(target.substr(question)) == std::string::npos);
        return 0;
    }
    OSF_FUZZ_CHECK(osf::policy::unreadable_path(path).empty());
    OSF_FUZZ_CHECK(method != "DELETE" && method != "PUT" && method != "get" && method != "PATCH");
    const bool repository = osf::policy::path_is_under(path, "/repos/acme/widgets") ||
                            osf::policy::path_is_under(path, "/acme/widgets.git/info/refs");
    OSF_FUZZ_CHECK(repository);
    for (const auto outside : {"/repos/acme/secret", "/repos/other", "/acme/secret.git", "/admin",
                               "/repos/acme/widgets/hooks"})
        OSF_FUZZ_CHECK(!osf::policy::path_is_under(path, outside));
    return 0;
}
