// A `secrets` member of kind "aws": real AWS credentials (references), the
// regions and services requests may be signed for, and the hosts the proxy
// signs for. Each host must also be allowed by `egress`: a binding does not
// open a destination.
#include "host_syntax.hpp"
#include "json_path.hpp"
#include "secret_ref.hpp"
#include "spec_sections.hpp"

#include <algorithm>

namespace osf::spec_detail {

namespace {

constexpr std::size_t max_aws_list = 32;
constexpr std::size_t max_aws_word = 64;

bool is_region(std::string_view text) {
    // "us-east-1", "eu-central-2", "us-gov-west-1", "cn-north-1"
    if (text.empty() || text.size() > max_aws_word || text.front() == '-' || text.back() == '-')
        return false;
    return std::all_of(text.begin(), text.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
    });
}

// A signing name ("s3", "bedrock", "execute-api"): what a credential scope names.
bool is_service(std::string_view text) {
    return is_region(text);
}

// `host` (a pattern) is inside what `rule` allows: the same name, or under the
// rule's wildcard; a wildcard pattern only under a wildcard rule.
bool egress_covers(const EgressRule& rule, const std::string& host) {
    if (!rule.wildcard()) return rule.host == host;
    const std::string suffix = rule.host.substr(1); // ".domain"
    if (host.starts_with("*.")) return host == rule.host || host.ends_with(suffix);
    return host.size() > suffix.size() && host.ends_with(suffix);
}

std::optional<SecretRef> read_ref(const nlohmann::json& object, const std::string& at,
                                  const char* key, bool required, const SpecCheck& check) {
    const auto found = object.find(key);
    const std::string where = member_path(at, key);
    if (found == object.end()) {
        if (required)
            check.fail(at, std::string("needs \"") + key +
                               "\": a reference \"ref:env/<NAME>\", \"ref:file/<name>\" or "
                               "\"ref:openbao/<path>\"");
        return std::nullopt;
    }
    if (!found->is_string()) {
        check.fail(where, "must be a string \"ref:env/<NAME>\", \"ref:file/<name>\" or "
                          "\"ref:openbao/<path>\"; got " +
                              describe_type(*found));
        return std::nullopt;
    }
    auto checked = check_secret_ref(found->get_ref<const std::string&>());
    if (auto* problem = std::get_if<std::string>(&checked)) {
        check.fail(where, "the value " + *problem);
        return std::nullopt;
    }
    return std::get<SecretRef>(std::move(checked));
}

// A non-empty array of distinct strings, each accepted by `accept` (which
// returns the kept form, or nullopt with the problem in `why`).
template <class Accept>
std::optional<std::vector<std::string>>
read_list(const nlohmann::json& object, const std::string& at, const char* key,
          std::string_view example, const SpecCheck& check, Accept accept) {
    const auto found = object.find(key);
    const std::string where = member_path(at, key);
    if (found == object.end()) {
        check.fail(at, std::string("needs \"") + key + "\": a non-empty array, as " +
                           std::string(example));
        return std::nullopt;
    }
    if (!found->is_array() || found->empty() || found->size() > max_aws_list) {
        check.fail(where, "must be an array of 1 to " + std::to_string(max_aws_list) +
                              " strings, as " + std::string(example) + "; got " +
                              (found->is_array() ? std::to_string(found->size()) + " members"
                                                 : describe_type(*found)));
        return std::nullopt;
    }
    std::vector<std::string> kept;
    bool good = true;
    for (std::size_t i = 0; i < found->size(); ++i) {
        const auto& item = (*found)[i];
        const std::string item_at = index_path(where, i);
        if (!item.is_string()) {
            check.fail(item_at, "must be a string; got " + describe_type(item));
            good = false;
            continue;
        }
        std::string why;
        auto value = accept(item.get_ref<const std::string&>(), why);
        if (!value) {
            check.fail(item_at, why);
            good = false;
        } else if (std::find(kept.begin(), kept.end(), *value) != kept.end()) {
            check.fail(item_at, json_quoted(*value) + " is listed twice");
            good = false;
        } else {
            kept.push_back(std::move(*value));
        }
    }
    if (!good) return std::nullopt;
    return kept;
}

} // namespace

void check_aws_secret(const nlohmann::json& value, const std::string& at, const std::string& name,
                      const SpecCheck& check, Spec& spec) {
    check_known_fields(
        value, at,
        {"kind", "accessKeyId", "secretAccessKey", "sessionToken", "regions", "services", "hosts"},
        "an AWS secret", check);
    const auto kind = value.find("kind");
    if (kind == value.end() || !kind->is_string() || kind->get_ref<const std::string&>() != "aws") {
        check.fail(member_path(at, "kind"),
                   "must be \"aws\" (the only kind of secret written as an object with \"kind\")");
        return;
    }
    const auto access_key_id = read_ref(value, at, "accessKeyId", true, check);
    const auto secret_access_key = read_ref(value, at, "secretAccessKey", true, check);
    const auto session_token = read_ref(value, at, "sessionToken", false, check);
    const bool token_bad = value.contains("sessionToken") && !session_token;
    const auto regions =
        read_list(value, at, "regions", "[\"us-east-1\"]", check,
                  [](const std::string& text, std::string& why) -> std::optional<std::string> {
                      if (is_region(text)) return text;
                      why = json_quoted(text) +
                            " is not a region: lower-case letters, digits and '-', "
                            "as \"us-east-1\"";
                      return std::nullopt;
                  });
    const auto services =
        read_list(value, at, "services", "[\"s3\"]", check,
                  [](const std::string& text, std::string& why) -> std::optional<std::string> {
                      if (is_service(text)) return text;
                      why = json_quoted(text) +
                            " is not a service's signing name: lower-case letters, "
                            "digits and '-', as \"s3\" or \"bedrock\"";
                      return std::nullopt;
                  });
    const auto hosts = read_list(
        value, at, "hosts", "[\"*.s3.amazonaws.com\"]", check,
        [&spec](const std::string& text, std::string& why) -> std::optional<std::string> {
            auto host = check_host(text, true);
            if (auto* problem = std::get_if<HostProblem>(&host)) {
                why = json_quoted(text) + " " + problem->message;
                return std::nullopt;
            }
            auto& kept = std::get<std::string>(host);
            const bool allowed = std::any_of(spec.egress.begin(), spec.egress.end(),
                                             [&](const auto& r) { return egress_covers(r, kept); });
            if (!allowed) {
                why = json_quoted(kept) +
                      " is not allowed by egress: add it there too (a secret's hosts never "
                      "open a destination)";
                return std::nullopt;
            }
            return std::move(kept);
        });
    if (!access_key_id || !secret_access_key || token_bad || !regions || !services || !hosts)
        return;
    spec.aws_secrets.emplace(name, AwsSecret{*access_key_id, *secret_access_key, session_token,
                                             *regions, *services, *hosts});
}

} // namespace osf::spec_detail

namespace osf::spec_detail {

void check_aws_cross_section(const nlohmann::json& document, const SpecCheck& check) {
    const auto secrets = document.find("secrets");
    if (secrets == document.end() || !secrets->is_object()) return;
    std::vector<std::string> aws;
    for (const auto& [name, value] : secrets->items())
        if (value.is_object() && value.contains("kind")) aws.push_back(name);
    if (aws.empty()) return;
    if (aws.size() > 1)
        check.fail(member_path("$.secrets", aws[1]),
                   "is a second secret of kind \"aws\": the sandbox's AWS_ACCESS_KEY_ID and "
                   "AWS_SECRET_ACCESS_KEY hold one secret's placeholders, so declare one");
    const auto env = document.find("env");
    for (const auto variable :
         {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"}) {
        if (env != document.end() && env->is_object() && env->contains(variable))
            check.fail(member_path("$.env", variable),
                       "is set by the AWS secret " + aws.front() +
                           " (its placeholder credentials), so remove it from env");
        if (secrets->contains(variable))
            check.fail(member_path("$.secrets", variable),
                       "is the variable of the AWS secret " + aws.front() +
                           "'s placeholder credentials; choose another name");
    }
}

} // namespace osf::spec_detail
