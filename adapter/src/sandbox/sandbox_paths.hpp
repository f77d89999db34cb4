// Where things are inside every sandbox, whatever runs it: the workspace, the
// egress CA and the variables that point TLS clients at it, the package cache
// and the package managers' variables that point into it.
#pragma once

#include <string_view>
#include <utility>

namespace osf::sandbox {

inline constexpr const char* kWorkspaceDir = "/workspace";
inline constexpr const char* kCaDir = "/etc/osf";
inline constexpr const char* kCaFile = "egress-ca.crt";
inline constexpr const char* kCaPath = "/etc/osf/egress-ca.crt";

// Variables that point every common TLS client at the egress CA.
inline constexpr const char* kCaVariables[] = {"SSL_CERT_FILE", "NODE_EXTRA_CA_CERTS",
                                               "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE",
                                               "GIT_SSL_CAINFO"};

inline constexpr const char* kCacheDir = "/cache";
// Variable -> where it points. The spec's own `env` wins over these.
inline constexpr std::pair<std::string_view, std::string_view> kCacheVariables[] = {
    {"XDG_CACHE_HOME", "/cache"},    {"npm_config_cache", "/cache/npm"},
    {"PIP_CACHE_DIR", "/cache/pip"}, {"GOMODCACHE", "/cache/go/mod"},
    {"GOCACHE", "/cache/go/build"},  {"COMPOSER_CACHE_DIR", "/cache/composer"},
};

} // namespace osf::sandbox
