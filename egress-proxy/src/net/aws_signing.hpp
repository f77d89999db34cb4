// The request path's side of AWS re-signing: the head's fields as they will
// go upstream handed to sigv4::resign (pure), and what it decided applied to
// the head. Called after every other change to the head (placeholders,
// target, Host), so that what is signed is exactly what is sent.
#pragma once

#include "secrets/sigv4_resigning.hpp"

#include <boost/beast/http/message.hpp>
#include <optional>
#include <string>
#include <vector>

namespace osf::net {

inline secrets::sigv4::Resigning
resign_aws_request(const std::vector<secrets::sigv4::AwsKeys>& keys,
                   boost::beast::http::request_header<>& head, std::string_view host, bool has_body,
                   std::optional<std::string_view> body_hash = std::nullopt) {
    std::vector<secrets::sigv4::Field> fields;
    for (const auto& field : head)
        fields.emplace_back(std::string(field.name_string()), std::string(field.value()));
    auto result = secrets::sigv4::resign(
        keys, {head.method_string(), head.target(), host, fields, has_body, body_hash});
    if (result.changes()) {
        for (const auto& [name, value] : result.set_fields)
            head.set(name, value);
        if (result.target) head.target(*result.target);
    }
    return result;
}

} // namespace osf::net
