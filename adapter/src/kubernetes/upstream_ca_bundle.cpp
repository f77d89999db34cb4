#include "kubernetes/upstream_ca_bundle.hpp"

#include "commands/command_errors.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

namespace osf::kubernetes {

std::optional<std::string> upstream_ca_problem(const std::string& text) {
    if (text.size() > kUpstreamCaMaxBytes)
        return "larger than " + std::to_string(kUpstreamCaMaxBytes / 1024) + " KiB";
    if (text.find("-----BEGIN CERTIFICATE-----") == std::string::npos)
        return "holds no PEM certificate (-----BEGIN CERTIFICATE-----)";
    if (text.find("PRIVATE KEY-----") != std::string::npos)
        return "holds a private key: a trust bundle holds certificates only";
    return std::nullopt;
}

std::string read_upstream_ca_bundle(const std::optional<std::string>& path) {
    if (!path) return "";
    std::ifstream in(*path, std::ios::binary);
    if (!in)
        throw commands::UsageError("OSF_UPSTREAM_CA_BUNDLE: cannot read " + *path + ": " +
                                   std::strerror(errno));
    std::string text;
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (in.bad()) throw commands::UsageError("OSF_UPSTREAM_CA_BUNDLE: cannot read " + *path);
    if (const auto problem = upstream_ca_problem(text))
        throw commands::UsageError("OSF_UPSTREAM_CA_BUNDLE: " + *path + " " + *problem);
    return text;
}

} // namespace osf::kubernetes
