// `ref:openbao/<path>`: the field `value` of the KV v2 secret <path> under
// mount OSF_OPENBAO_MOUNT (default "secret"), read from OSF_OPENBAO_ADDR with
// OSF_OPENBAO_TOKEN sent as X-Vault-Token.
//
// TLS is verified against the system trust store, the proxy's extra CA bundle
// (SourceEnvironment::extra_ca_bundle) and, when set, OSF_OPENBAO_CACERT (the
// same role as BAO_CACERT: one PEM file). The whole exchange is bounded by
// openbao_timeout.
#pragma once

#include "secrets/http_get.hpp"
#include "secrets/secret_store.hpp"
#include "secrets/source_result.hpp"

#include <chrono>
#include <functional>
#include <string>

namespace osf::secrets {

inline constexpr std::chrono::milliseconds openbao_timeout{10'000};
inline constexpr std::string_view openbao_default_mount = "secret";

using HttpGetter = std::function<HttpGetReply(const HttpGetRequest&)>;

// `get` is http_get in the proxy; tests pass their own.
SourceResult read_openbao_secret(const std::string& path, const SourceEnvironment& env,
                                 const HttpGetter& get);

} // namespace osf::secrets
