#include "secrets/openbao_source.hpp"

#include "secrets/openbao_address.hpp"
#include "secrets/openbao_reply.hpp"

namespace osf::secrets {
namespace {

std::optional<std::string> variable(const SourceEnvironment& env, const std::string& name) {
    auto value = env.getenv ? env.getenv(name) : std::nullopt;
    if (value && value->empty()) return std::nullopt;
    return value;
}

std::string transport_message(const HttpGetReply& reply, const OpenBaoAddress& address) {
    const std::string server = "OpenBao at " + address.authority();
    switch (reply.failure) {
    case HttpGetReply::Failure::Setup:
        return "cannot set up TLS for " + server + ": " + reply.detail;
    case HttpGetReply::Failure::Resolve:
        return "cannot resolve the host of " + server + ": " + reply.detail;
    case HttpGetReply::Failure::Connect:
        return "cannot connect to " + server + ": " + reply.detail;
    case HttpGetReply::Failure::Tls:
        return "TLS with " + server + " failed: " + reply.detail +
               " (its certificate must chain to the system trust store, the extra CA bundle or "
               "OSF_OPENBAO_CACERT, and name the host)";
    case HttpGetReply::Failure::Timeout:
        return server + " gave no answer: " + reply.detail;
    case HttpGetReply::Failure::Protocol:
        return "bad answer from " + server + ": " + reply.detail;
    case HttpGetReply::Failure::None:
        break;
    }
    return server + " failed";
}

} // namespace

SourceResult read_openbao_secret(const std::string& path, const SourceEnvironment& env,
                                 const HttpGetter& get) {
    if (auto problem = openbao_path_problem(path))
        return SourceResult::failure("the OpenBao secret path is not usable: " + *problem);

    const auto addr = variable(env, "OSF_OPENBAO_ADDR");
    if (!addr)
        return SourceResult::failure(
            "OSF_OPENBAO_ADDR is not set (it must name the OpenBao server, e.g. "
            "https://openbao.example:8200)");
    auto parsed = parse_openbao_address(*addr);
    if (!parsed.address) return SourceResult::failure(parsed.error);
    const OpenBaoAddress& address = *parsed.address;

    const auto token = variable(env, "OSF_OPENBAO_TOKEN");
    if (!token) return SourceResult::failure("OSF_OPENBAO_TOKEN is not set");
    for (char c : *token)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
            return SourceResult::failure(
                "OSF_OPENBAO_TOKEN contains a control character or line break");

    const std::string mount =
        variable(env, "OSF_OPENBAO_MOUNT").value_or(std::string(openbao_default_mount));
    if (auto problem = openbao_path_problem(mount))
        return SourceResult::failure("OSF_OPENBAO_MOUNT is not usable: " + *problem);

    HttpGetRequest request;
    request.tls = address.tls;
    request.host = address.host;
    request.port = address.port;
    request.target = openbao_target(address.base_path, mount, path);
    request.headers.emplace_back("X-Vault-Token", *token);
    if (!env.extra_ca_bundle.empty()) request.extra_ca_files.push_back(env.extra_ca_bundle);
    if (auto cacert = variable(env, "OSF_OPENBAO_CACERT"))
        request.extra_ca_files.push_back(*cacert);
    request.timeout = openbao_timeout;

    const HttpGetReply reply = get(request);
    if (reply.failure != HttpGetReply::Failure::None)
        return SourceResult::failure(transport_message(reply, address));
    return interpret_openbao_reply(reply.status, reply.body, mount + "/data/" + path);
}

} // namespace osf::secrets
