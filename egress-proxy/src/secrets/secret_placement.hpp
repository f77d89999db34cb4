// Where each secret's placeholder is replaced in one request, and when the
// request is refused instead. Pure: the request path gathers the facts (the
// head, and the body when asked for), calls place_secrets(), and either
// answers the refusal or sends what it returned.
//
// A secret written as a bare reference is unbound: replaced in header values
// and Basic credentials for every egress host, left alone anywhere else (as
// it always was). A bound secret (`hosts`, `in`, `require`) is replaced only
// on its hosts and only in the places its `in` names; its placeholder found
// anywhere else (another host, or a place not in `in`) refuses the request:
// a placeholder going astray is a signal, not noise. With `require`, a
// request to its hosts must carry the placeholder where `in` says, and no
// Authorization field (nor a field of the name the placeholder is in) that
// does not hold it.
#pragma once

#include "osf/log_fields.hpp"
#include "secrets/value_masking.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace osf::secrets {

struct Secret;

// What a request's body is, for substitution (read from Content-Type and
// Content-Encoding by the caller).
enum class BodyKind : std::uint8_t {
    none,  // no body
    json,  // application/json
    form,  // application/x-www-form-urlencoded
    text,  // text/*
    other, // anything else, or encoded (gzip...): never read for secrets
};

// The kind of a body with this Content-Type (media type compared without
// case or parameters); any Content-Encoding makes it `other`.
BodyKind body_kind(std::string_view content_type, std::string_view content_encoding);

struct RequestField {
    std::string_view name;
    std::string_view value;
};

struct PlacementRequest {
    std::string_view host;  // canonical
    std::uint16_t port = 0; //
    bool in_egress = false; // the host is in `egress` (unbound secrets go there)
    bool upstream_tls = true;
    std::string_view target;            // origin form ("/path?query")
    std::span<const RequestField> head; // hop-by-hop fields removed
    BodyKind body_kind = BodyKind::none;
    const std::string* body = nullptr; // the whole body when read, else null
};

struct PlacementRefusal {
    RefusalReason reason;
    std::string detail; // names secrets and hosts, never a value
};

struct Placement {
    std::optional<PlacementRefusal> refusal;
    // A bound secret may go into this body: read it whole (within the bound)
    // and place again with it. Set only when nothing refused the head.
    bool needs_body = false;
    // Set when they change: the head fields in order, the target, the body.
    std::optional<std::vector<std::pair<std::string, std::string>>> head;
    std::optional<std::string> target;
    std::optional<std::string> body;
    std::vector<std::string> names; // the secrets replaced, sorted, once each
    // Forms of a value written that the store does not know already (each
    // Basic token built, a JSON-escaped value): for answer masking.
    std::vector<EchoForm> written;
    bool changes() const { return head || target || body; }
};

Placement place_secrets(const PlacementRequest& request, std::span<const Secret> secrets);

// True when a bound host pattern ("api.example.com", "*.example.com",
// "host:8443") covers this canonical host and port.
bool binding_covers(std::string_view pattern_host, std::optional<std::uint16_t> pattern_port,
                    std::string_view host, std::uint16_t port);

// A value as it goes into a JSON string: '"', '\' and control characters escaped.
std::string json_escape(std::string_view value);

} // namespace osf::secrets
