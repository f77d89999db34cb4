#include "secrets/sigv4_resigning.hpp"

#include "secrets/sigv4_credential.hpp"

#include <algorithm>

namespace osf::secrets::sigv4 {

namespace {

bool iequal(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               auto low = [](char c) { return c >= 'A' && c <= 'Z' ? char(c + 32) : c; };
               return low(x) == low(y);
           });
}

bool contains(const std::vector<std::string>& list, std::string_view item) {
    return std::find(list.begin(), list.end(), item) != list.end();
}

std::vector<std::string_view> values_of(std::span<const Field> fields, std::string_view name) {
    std::vector<std::string_view> out;
    for (const auto& [field, value] : fields)
        if (iequal(field, name)) out.push_back(value);
    return out;
}

Resigning refuse(const AwsKeys* keys, RefusalReason why, std::string detail) {
    Resigning out;
    out.keys = keys;
    out.refused = why;
    out.detail = std::move(detail);
    return out;
}

// The canonical URIs a client may have signed: S3 signs the path as sent,
// other services encode it once more (the first that verifies is used).
std::vector<std::string> canonical_uris(std::string_view path, std::string_view service) {
    if (service == "s3") return {canonical_uri(path, false)};
    return {canonical_uri(path, true), canonical_uri(path, false)};
}

struct Signed {
    std::string placeholder_signature;
    std::string real_signature;
};

} // namespace

bool AwsKeys::binds(std::string_view host) const {
    return std::any_of(hosts.begin(), hosts.end(), [&](const std::string& pattern) {
        if (!pattern.starts_with("*.")) return pattern == host;
        const std::string_view suffix = std::string_view(pattern).substr(1);
        return host.size() > suffix.size() && host.ends_with(suffix);
    });
}

namespace {

// A request with no SigV4 signature: nothing to sign again, but a signature
// of another version made with a placeholder, or sent to a bound host, is
// refused rather than sent on to fail there or to carry the sandbox's own key.
Resigning without_sigv4(std::span<const AwsKeys> secrets, const AwsKeys* bound,
                        const std::vector<std::string_view>& authorizations,
                        std::string_view query) {
    // Signature Version 2 (presigned "AWSAccessKeyId=", "Authorization: AWS id:sig")
    // is not signed again: said, rather than sent with a placeholder to fail there.
    const auto v2_id = query_parameter(query, "AWSAccessKeyId");
    for (const auto& keys : secrets) {
        const bool in_header =
            std::any_of(authorizations.begin(), authorizations.end(), [&](std::string_view value) {
                return value.starts_with("AWS " + keys.placeholder_key_id + ":");
            });
        if (in_header || v2_id == keys.placeholder_key_id)
            return refuse(&keys, RefusalReason::aws_signature_unsupported,
                          "AWS Signature Version 2 is not signed again: sign with Signature "
                          "Version 4 (boto3: Config(signature_version=\"s3v4\"))");
    }
    // Another version of AWS signature (SigV2, SigV4a) to a bound host is a credential
    // of the sandbox's own there: never signed again, so never let through.
    const bool other_version =
        v2_id || query_parameter(query, "X-Amz-Algorithm") ||
        std::any_of(authorizations.begin(), authorizations.end(), [](std::string_view value) {
            while (value.starts_with(' '))
                value.remove_prefix(1);
            return value.starts_with("AWS ") || value.starts_with("AWS4-ECDSA-P256-SHA256");
        });
    if (bound && other_version)
        return refuse(bound, RefusalReason::aws_signature_unsupported,
                      "an AWS signature of another version (SigV2, SigV4a) to a host of the "
                      "AWS secret " +
                          bound->name + ": only Signature Version 4 is signed again");
    return {};
}

// A refusal when the secret `keys` may not sign for this host, region or
// service.
std::optional<Resigning> outside_scope(const AwsKeys* keys, std::string_view host,
                                       const Scope& scope) {
    if (!keys->binds(host))
        return refuse(keys, RefusalReason::aws_scope_not_allowed,
                      "the placeholder credentials of the AWS secret " + keys->name +
                          " are signed for its hosts only");
    if (!contains(keys->regions, scope.region))
        return refuse(keys, RefusalReason::aws_scope_not_allowed,
                      "region " + scope.region + " is not one the AWS secret " + keys->name +
                          " allows");
    if (!contains(keys->services, scope.service))
        return refuse(keys, RefusalReason::aws_scope_not_allowed,
                      "service " + scope.service + " is not one the AWS secret " + keys->name +
                          " allows");
    return std::nullopt;
}

// What a verified placeholder signature is checked and signed again with.
struct Signing {
    const AwsKeys* keys;
    Scope scope;
    std::string amz_date;
    std::optional<std::string> token; // the session token the request carries
    std::string placeholder_key;      // derived signing keys
    std::string real_key;
    std::string_view path;
    std::string_view query;
};

// A request signed in its Authorization field: the placeholder signature
// verified, then the Authorization (and session token) the origin gets.
Resigning resign_header(const RequestToSign& request, const AuthorizationHeader& authorization,
                        const Signing& signing) {
    const AwsKeys* keys = signing.keys;
    Resigning out;
    out.keys = keys;
    const auto& signed_names = authorization.signed_headers;
    if (!contains(signed_names, "host"))
        return refuse(keys, RefusalReason::aws_signature_not_placeholder,
                      "a signature that does not cover the Host header");
    std::string headers;
    if (!canonical_headers(request.fields, signed_names, headers))
        return refuse(keys, RefusalReason::aws_signature_not_placeholder,
                      "a signed header is missing from the request");
    const auto hashes = values_of(request.fields, "x-amz-content-sha256");
    std::string payload_hash;
    if (hashes.size() == 1) {
        payload_hash = std::string(hashes.front());
    } else if (hashes.empty() && !request.has_body) {
        payload_hash = std::string(empty_payload_hash);
    } else if (hashes.empty() && request.body_hash) {
        payload_hash = std::string(*request.body_hash);
    } else if (hashes.empty()) {
        out.needs_body_hash = true;
        return out;
    } else {
        return refuse(keys, RefusalReason::aws_signature_not_placeholder,
                      "more than one X-Amz-Content-SHA256 field");
    }
    if (payload_hash.ends_with("-TRAILER") && payload_hash != "STREAMING-UNSIGNED-PAYLOAD-TRAILER")
        return refuse(keys, RefusalReason::aws_signature_unsupported,
                      "a signed trailer (" + payload_hash + ")");
    const std::string canonical_q = canonical_query(signing.query);
    std::optional<std::string> verified_uri;
    for (const auto& uri : canonical_uris(signing.path, signing.scope.service)) {
        const auto creq = canonical_request(request.method, uri, canonical_q, headers,
                                            authorization.signed_headers_text, payload_hash);
        if (same_signature(signature(signing.placeholder_key,
                                     string_to_sign(signing.amz_date, signing.scope, creq)),
                           authorization.signature)) {
            verified_uri = uri;
            break;
        }
    }
    if (!verified_uri)
        return refuse(keys, RefusalReason::aws_signature_not_placeholder,
                      "the signature does not verify with the placeholder credentials of the "
                      "AWS secret " +
                          keys->name);
    // The same request with the real session token, signed with the real key.
    std::vector<Field> real_fields(request.fields.begin(), request.fields.end());
    if (signing.token)
        for (auto& [name, value] : real_fields)
            if (iequal(name, "x-amz-security-token")) value = keys->token;
    canonical_headers(real_fields, signed_names, headers);
    const auto creq = canonical_request(request.method, *verified_uri, canonical_q, headers,
                                        authorization.signed_headers_text, payload_hash);
    const std::string real_signature =
        signature(signing.real_key, string_to_sign(signing.amz_date, signing.scope, creq));
    out.set_fields.emplace_back("Authorization",
                                std::string(algorithm) + " Credential=" + keys->key_id + "/" +
                                    signing.scope.text() +
                                    ", SignedHeaders=" + authorization.signed_headers_text +
                                    ", Signature=" + real_signature);
    if (signing.token) out.set_fields.emplace_back("X-Amz-Security-Token", keys->token);
    if (payload_hash == streaming_payload)
        out.chunks =
            ChunkSigning{signing.amz_date, signing.scope,           signing.placeholder_key,
                         signing.real_key, authorization.signature, real_signature};
    return out;
}

// A presigned URL: the same checks on the query's parameters, and the query
// the origin gets (real credential, token and signature).
Resigning resign_presigned(const RequestToSign& request, const Signing& signing) {
    const AwsKeys* keys = signing.keys;
    const std::string_view query = signing.query;
    const auto given = query_parameter(query, "X-Amz-Signature");
    const auto names = query_parameter(query, "X-Amz-SignedHeaders");
    const auto algorithm_named = query_parameter(query, "X-Amz-Algorithm");
    if (!given || !is_signature(*given) || !names || algorithm_named != algorithm)
        return refuse(keys, RefusalReason::aws_signature_not_placeholder,
                      "a presigned URL without X-Amz-Algorithm, X-Amz-SignedHeaders or "
                      "X-Amz-Signature");
    std::vector<std::string> signed_names;
    for (std::string_view rest = *names;;) {
        const auto semi = rest.find(';');
        signed_names.emplace_back(rest.substr(0, semi));
        if (semi == std::string_view::npos) break;
        rest.remove_prefix(semi + 1);
    }
    // A real signature is made only for the host the request goes to.
    if (!contains(signed_names, "host"))
        return refuse(keys, RefusalReason::aws_signature_not_placeholder,
                      "a presigned URL whose signature does not cover the Host header");
    std::string headers;
    if (!canonical_headers(request.fields, signed_names, headers))
        return refuse(keys, RefusalReason::aws_signature_not_placeholder,
                      "a signed header is missing from the request");
    std::vector<std::string> payload_hashes;
    if (auto named = query_parameter(query, "X-Amz-Content-Sha256"))
        payload_hashes.push_back(*named);
    else
        payload_hashes = {std::string(unsigned_payload), std::string(empty_payload_hash)};
    const std::string canonical_q = canonical_query(query, "X-Amz-Signature");
    std::optional<std::pair<std::string, std::string>> verified; // uri, payload hash
    for (const auto& uri : canonical_uris(signing.path, signing.scope.service))
        for (const auto& hash : payload_hashes) {
            if (verified) break;
            const auto creq =
                canonical_request(request.method, uri, canonical_q, headers, *names, hash);
            if (same_signature(signature(signing.placeholder_key,
                                         string_to_sign(signing.amz_date, signing.scope, creq)),
                               *given))
                verified.emplace(uri, hash);
        }
    if (!verified)
        return refuse(keys, RefusalReason::aws_signature_not_placeholder,
                      "the presigned URL's signature does not verify with the placeholder "
                      "credentials of the AWS secret " +
                          keys->name);
    std::vector<std::pair<std::string, std::string>> replaced = {
        {"X-Amz-Credential", keys->key_id + "/" + signing.scope.text()}};
    if (signing.token) replaced.emplace_back("X-Amz-Security-Token", keys->token);
    const std::string real_query = replace_query_values(query, replaced);
    const auto creq = canonical_request(request.method, verified->first,
                                        canonical_query(real_query, "X-Amz-Signature"), headers,
                                        *names, verified->second);
    replaced.emplace_back(
        "X-Amz-Signature",
        signature(signing.real_key, string_to_sign(signing.amz_date, signing.scope, creq)));
    Resigning out;
    out.keys = keys;
    out.target = std::string(signing.path) + "?" + replace_query_values(query, replaced);
    return out;
}

} // namespace

Resigning resign(std::span<const AwsKeys> secrets, const RequestToSign& request) {
    const auto question = request.target.find('?');
    const std::string_view path = request.target.substr(0, question);
    const std::string_view query = question == std::string_view::npos
                                       ? std::string_view()
                                       : request.target.substr(question + 1);

    const auto authorizations = values_of(request.fields, "authorization");
    const bool header_signed =
        std::any_of(authorizations.begin(), authorizations.end(), is_sigv4_authorization);
    std::size_t credentials_in_query = 0;
    const auto query_credential = query_parameter(query, "X-Amz-Credential", &credentials_in_query);
    const bool query_signed = credentials_in_query > 0;
    const AwsKeys* bound = nullptr;
    for (const auto& keys : secrets)
        if (keys.binds(request.host)) bound = &keys;
    if (!header_signed && !query_signed)
        return without_sigv4(secrets, bound, authorizations, query);

    // Whose credentials: a placeholder key id names its secret.
    std::optional<Credential> credential;
    std::optional<AuthorizationHeader> authorization;
    if (header_signed && query_signed)
        return refuse(bound, RefusalReason::aws_signature_not_placeholder,
                      "a request signed both in Authorization and in its query");
    if (header_signed) {
        if (authorizations.size() != 1)
            return refuse(bound, RefusalReason::aws_signature_not_placeholder,
                          "more than one Authorization field");
        authorization = parse_authorization(authorizations.front());
        if (authorization) credential = authorization->credential;
    } else if (credentials_in_query == 1 && query_credential) {
        credential = parse_credential(*query_credential);
    }
    const AwsKeys* keys = nullptr;
    if (credential)
        for (const auto& candidate : secrets)
            if (candidate.placeholder_key_id == credential->key_id) keys = &candidate;
    if (!keys) {
        if (!bound) return {}; // someone else's AWS request to a host no secret is bound to
        return refuse(bound, RefusalReason::aws_signature_not_placeholder,
                      credential ? "signed with credentials other than the placeholder ones of "
                                   "the AWS secret " +
                                       bound->name
                                 : "a malformed AWS4-HMAC-SHA256 signature");
    }
    const Scope& scope = credential->scope;
    if (auto refused = outside_scope(keys, request.host, scope)) return std::move(*refused);

    // The date and the session token, from the header or the query.
    std::string amz_date;
    std::optional<std::string> token;
    std::size_t tokens = 0;
    if (header_signed) {
        const auto dates = values_of(request.fields, "x-amz-date");
        if (dates.size() == 1) amz_date = std::string(dates.front());
        const auto found = values_of(request.fields, "x-amz-security-token");
        tokens = found.size();
        if (tokens == 1) token = std::string(found.front());
    } else {
        amz_date = query_parameter(query, "X-Amz-Date").value_or("");
        token = query_parameter(query, "X-Amz-Security-Token", &tokens);
    }
    if (amz_date.size() != 16 || !amz_date.starts_with(scope.date))
        return refuse(keys, RefusalReason::aws_signature_not_placeholder,
                      "X-Amz-Date is missing or not of the credential's date");
    if (tokens > 1 || (token && (keys->placeholder_token.empty() ||
                                 !same_signature(*token, keys->placeholder_token))))
        return refuse(keys, RefusalReason::aws_signature_not_placeholder,
                      "a session token other than the placeholder of the AWS secret " + keys->name);

    const Signing signing{keys,
                          scope,
                          std::move(amz_date),
                          std::move(token),
                          signing_key(keys->placeholder_secret, scope),
                          signing_key(keys->secret, scope),
                          path,
                          query};
    return header_signed ? resign_header(request, *authorization, signing)
                         : resign_presigned(request, signing);
}

} // namespace osf::secrets::sigv4
