#include "secrets/secret_placement.hpp"

#include "secrets/basic_auth.hpp"
#include "secrets/placeholder_substitution.hpp"
#include "secrets/secret_store.hpp"
#include "text/ascii.hpp"

#include <algorithm>

namespace osf::secrets {

namespace {

using text::iequals;

bool is_placeholder_name_char(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

bool is_ipv4_literal(std::string_view host) {
    return !host.empty() && std::all_of(host.begin(), host.end(),
                                        [](char c) { return (c >= '0' && c <= '9') || c == '.'; });
}

std::string_view place_name(SecretPlace place) {
    switch (place) {
    case SecretPlace::header:
        return "a header";
    case SecretPlace::basic:
        return "Basic credentials";
    case SecretPlace::query:
        return "the query";
    case SecretPlace::path:
        return "the path";
    case SecretPlace::body:
        return "the body";
    }
    return "?";
}

std::string places_of(const osf::SecretBinding& binding) {
    std::string out;
    for (const auto& [place, name] :
         {std::pair{SecretPlace::header, "header"}, std::pair{SecretPlace::basic, "basic"},
          std::pair{SecretPlace::query, "query"}, std::pair{SecretPlace::path, "path"},
          std::pair{SecretPlace::body, "body"}})
        if (binding.allows(place)) out += (out.empty() ? "" : ", ") + std::string(name);
    return out;
}

std::string hosts_of(const osf::SecretBinding& binding) {
    std::string out;
    for (const auto& rule : binding.hosts) {
        out += (out.empty() ? "" : ", ") + rule.host;
        if (rule.port) out += ":" + std::to_string(*rule.port);
    }
    return out;
}

// One pass over a request: what each secret is here, what was found where.
class Placer {
public:
    Placer(const PlacementRequest& request, std::span<const Secret> secrets)
        : request_(request), secrets_(secrets), state_(secrets.size()) {
        for (std::size_t i = 0; i < secrets.size(); ++i) {
            const auto& binding = secrets[i].binding;
            state_[i].for_host =
                binding.bound() ? std::any_of(binding.hosts.begin(), binding.hosts.end(),
                                              [&](const osf::EgressRule& rule) {
                                                  return binding_covers(rule.host, rule.port,
                                                                        request.host, request.port);
                                              })
                                : request.in_egress;
        }
    }

    Placement run() {
        place_head();
        if (!result_.refusal) place_target();
        if (!result_.refusal && request_.body) place_body();
        if (!result_.refusal) check_required();
        if (!result_.refusal && !result_.names.empty() && !request_.upstream_tls)
            refuse(RefusalReason::secret_cleartext,
                   "a secret placeholder is substituted only on https:// requests");
        if (result_.refusal) {
            // Nothing is sent: no change, no form to remember.
            Placement refused;
            refused.refusal = std::move(result_.refusal);
            return refused;
        }
        result_.needs_body = wants_body();
        std::sort(result_.names.begin(), result_.names.end());
        result_.names.erase(std::unique(result_.names.begin(), result_.names.end()),
                            result_.names.end());
        return std::move(result_);
    }

private:
    struct SecretState {
        bool for_host = false;
        bool carried = false;                // replaced somewhere in this request
        std::vector<std::string> carried_in; // the header names it was replaced in
    };

    const PlacementRequest& request_;
    std::span<const Secret> secrets_;
    std::vector<SecretState> state_;
    Placement result_;

    void refuse(RefusalReason reason, std::string detail) {
        if (!result_.refusal) result_.refusal = PlacementRefusal{reason, std::move(detail)};
    }

    const Secret* declared(std::string_view name, std::size_t& index) const {
        for (std::size_t i = 0; i < secrets_.size(); ++i)
            if (secrets_[i].name == name) {
                index = i;
                return &secrets_[i];
            }
        return nullptr;
    }

    // Whether the secret's placeholder, found at `place`, is replaced here;
    // a bound secret's placeholder that may not be refuses the request.
    bool may_place(const Secret& secret, const SecretState& state, SecretPlace place) {
        const bool bound = secret.binding.bound();
        if (!state.for_host) {
            if (bound)
                refuse(RefusalReason::secret_not_bound,
                       "the placeholder of secret " + secret.name + " goes to " +
                           std::string(request_.host) + ", a host it is not bound to (" +
                           hosts_of(secret.binding) + ")");
            return false;
        }
        if (!secret.binding.allows(place)) {
            if (bound)
                refuse(RefusalReason::secret_place,
                       "the placeholder of secret " + secret.name + " is in " +
                           std::string(place_name(place)) +
                           ", where it may not be placed (in: " + places_of(secret.binding) + ")");
            return false;
        }
        return true;
    }

    // `text` with every placeholder that may be placed here replaced by its
    // value as `encode` writes it; `header` names the field, when in one.
    template <class Encode>
    std::string replace(std::string_view text, SecretPlace place, Encode encode,
                        std::string_view header, bool& changed) {
        std::string out;
        std::size_t copied = 0;
        std::size_t search = 0;
        while ((search = text.find(placeholder_prefix, search)) != std::string_view::npos) {
            const std::size_t name_start = search + placeholder_prefix.size();
            std::size_t name_end = name_start;
            while (name_end < text.size() && is_placeholder_name_char(text[name_end]))
                ++name_end;
            std::size_t index = 0;
            const Secret* secret = declared(text.substr(name_start, name_end - name_start), index);
            if (secret && may_place(*secret, state_[index], place)) {
                out.append(text.substr(copied, search - copied));
                out.append(encode(*secret));
                result_.names.push_back(secret->name);
                state_[index].carried = true;
                if (!header.empty()) state_[index].carried_in.emplace_back(header);
                copied = name_end;
                changed = true;
            }
            if (result_.refusal) return std::string(text);
            search = name_end;
        }
        if (copied == 0) return std::string(text);
        out.append(text.substr(copied));
        return out;
    }

    static std::string plain(const Secret& secret) { return secret.value; }
    static std::string percent(const Secret& secret) { return percent_encode(secret.value); }

    void place_head() {
        std::vector<std::pair<std::string, std::string>> fields;
        fields.reserve(request_.head.size());
        bool changed = false;
        for (const auto& field : request_.head) {
            std::string value;
            bool here = false;
            if (auto basic = parse_basic(field.value)) {
                std::string decoded =
                    replace(basic->decoded, SecretPlace::basic, plain, field.name, here);
                if (here) {
                    value = std::string(basic->prefix) + base64_encode(decoded);
                    // An echo of the token is an echo of the value.
                    result_.written.push_back(
                        {value.substr(basic->prefix.size()),
                         std::string(field.value.substr(basic->prefix.size())),
                         result_.names.back()});
                }
            } else {
                value = replace(field.value, SecretPlace::header, plain, field.name, here);
            }
            if (result_.refusal) return;
            changed = changed || here;
            fields.emplace_back(std::string(field.name),
                                here ? std::move(value) : std::string(field.value));
        }
        if (changed) result_.head = std::move(fields);
    }

    void place_target() {
        const auto target = request_.target;
        const auto mark = target.find('?');
        bool changed = false;
        std::string path = replace(target.substr(0, mark), SecretPlace::path, percent, {}, changed);
        if (result_.refusal) return;
        std::string query;
        if (mark != std::string_view::npos) {
            query =
                "?" + replace(target.substr(mark + 1), SecretPlace::query, percent, {}, changed);
            if (result_.refusal) return;
        }
        if (changed) result_.target = path + query;
    }

    void place_body() {
        bool changed = false;
        std::string body;
        switch (request_.body_kind) {
        case BodyKind::json:
            body = replace(
                *request_.body, SecretPlace::body,
                [this](const Secret& secret) {
                    std::string escaped = json_escape(secret.value);
                    if (escaped != secret.value)
                        result_.written.push_back({escaped, secret.placeholder, secret.name});
                    return escaped;
                },
                {}, changed);
            break;
        case BodyKind::form:
            body = replace(*request_.body, SecretPlace::body, percent, {}, changed);
            break;
        case BodyKind::text:
            body = replace(*request_.body, SecretPlace::body, plain, {}, changed);
            break;
        case BodyKind::none:
        case BodyKind::other:
            return;
        }
        if (!result_.refusal && changed) result_.body = std::move(body);
    }

    // A body is read for a bound secret that may go into it on this host.
    bool wants_body() const {
        if (request_.body) return false;
        if (request_.body_kind == BodyKind::none || request_.body_kind == BodyKind::other)
            return false;
        for (std::size_t i = 0; i < secrets_.size(); ++i)
            if (secrets_[i].binding.bound() && state_[i].for_host &&
                secrets_[i].binding.allows(SecretPlace::body))
                return true;
        return false;
    }

    void check_required() {
        const bool body_pending = wants_body();
        for (std::size_t i = 0; i < secrets_.size(); ++i) {
            const auto& secret = secrets_[i];
            const auto& state = state_[i];
            if (!secret.binding.bound() || !secret.binding.require || !state.for_host) continue;
            if (!state.carried && !(body_pending && secret.binding.allows(SecretPlace::body))) {
                refuse(RefusalReason::secret_required,
                       "a request to " + std::string(request_.host) +
                           " must carry the placeholder of secret " + secret.name +
                           " (in: " + places_of(secret.binding) + ")");
                return;
            }
        }
        // No credential of another form beside a required one: every
        // Authorization field, and every field of a name a required secret
        // was placed in, must hold a required secret's placeholder.
        for (const auto& field : request_.head) {
            bool guarded = iequals(field.name, "authorization");
            const Secret* owner = nullptr;
            for (std::size_t i = 0; i < secrets_.size(); ++i) {
                const auto& secret = secrets_[i];
                if (!secret.binding.bound() || !secret.binding.require || !state_[i].for_host)
                    continue;
                owner = owner ? owner : &secret;
                for (const auto& name : state_[i].carried_in)
                    if (iequals(name, field.name)) {
                        guarded = true;
                        owner = &secret;
                    }
            }
            if (!guarded || !owner) continue;
            if (holds_required_placeholder(field)) continue;
            refuse(RefusalReason::secret_required,
                   "a request to " + std::string(request_.host) + " carries its own " +
                       std::string(field.name) + ": secret " + owner->name + " is required there");
            return;
        }
    }

    bool holds_required_placeholder(const RequestField& field) const {
        std::string_view text = field.value;
        std::optional<BasicCredentials> basic = parse_basic(field.value);
        if (basic) text = basic->decoded;
        for (std::size_t i = 0; i < secrets_.size(); ++i) {
            const auto& secret = secrets_[i];
            if (!secret.binding.bound() || !secret.binding.require || !state_[i].for_host) continue;
            for (std::size_t at = text.find(secret.placeholder); at != std::string_view::npos;
                 at = text.find(secret.placeholder, at + 1)) {
                const std::size_t end = at + secret.placeholder.size();
                if (end == text.size() || !is_placeholder_name_char(text[end])) return true;
            }
        }
        return false;
    }
};

} // namespace

BodyKind body_kind(std::string_view content_type, std::string_view content_encoding) {
    if (!content_encoding.empty() && !iequals(text::trim(content_encoding), "identity"))
        return BodyKind::other;
    auto media = text::trim(content_type.substr(0, content_type.find(';')));
    if (media.empty()) return BodyKind::other;
    if (iequals(media, "application/json")) return BodyKind::json;
    if (iequals(media, "application/x-www-form-urlencoded")) return BodyKind::form;
    if (media.size() > 5 && iequals(media.substr(0, 5), "text/")) return BodyKind::text;
    return BodyKind::other;
}

bool binding_covers(std::string_view pattern_host, std::optional<std::uint16_t> pattern_port,
                    std::string_view host, std::uint16_t port) {
    if (pattern_port && *pattern_port != port) return false;
    if (!pattern_host.starts_with("*.")) return pattern_host == host;
    if (is_ipv4_literal(host)) return false;
    const std::string_view suffix = pattern_host.substr(1); // ".example.com"
    return host.size() > suffix.size() && host.ends_with(suffix);
}

std::string json_escape(std::string_view value) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string out;
    out.reserve(value.size());
    for (const char c : value) {
        const auto byte = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (c == '\t') {
            out += "\\t";
        } else if (byte < 0x20) {
            out += "\\u00";
            out += digits[byte >> 4];
            out += digits[byte & 0xf];
        } else {
            out += c;
        }
    }
    return out;
}

Placement place_secrets(const PlacementRequest& request, std::span<const Secret> secrets) {
    if (secrets.empty()) return {};
    return Placer(request, secrets).run();
}

} // namespace osf::secrets
