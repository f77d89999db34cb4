// One bounded HTTP(S) GET, blocking the caller: used once per OpenBao secret
// at start, before the proxy listens.
#pragma once

#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace osf::secrets {

struct HttpGetRequest {
    bool tls = true;
    std::string host; // name or IP literal (IPv6 without brackets)
    std::string port;
    std::string target; // "/v1/secret/data/app"
    std::vector<std::pair<std::string, std::string>> headers;
    // Trusted besides the system store. Names and IP literals are both
    // checked against the certificate; SNI is sent for names.
    std::vector<std::string> extra_ca_files;
    std::chrono::milliseconds timeout{10'000}; // the whole exchange
};

struct HttpGetReply {
    enum class Failure { None, Setup, Resolve, Connect, Tls, Timeout, Protocol };
    Failure failure = Failure::None;
    std::string detail; // what failed, for messages; never holds header values
    int status = 0;
    std::string body;
};

HttpGetReply http_get(const HttpGetRequest& request);

} // namespace osf::secrets
