#include "local/host/host_environment.hpp"

#include <array>
#include <string_view>

namespace osf::local {

namespace {

constexpr std::string_view kDefaultPath =
    "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

constexpr std::array<std::string_view, 4> kEveryone{"LANG", "LC_ALL", "LC_CTYPE", "TZ"};

// What buildah (and the containers libraries under it) read.
constexpr std::array<std::string_view, 15> kBuildahNames{
    "HOME",        "USER",       "XDG_RUNTIME_DIR", "XDG_DATA_HOME",      "XDG_CONFIG_HOME",
    "TMPDIR",      "HTTP_PROXY", "HTTPS_PROXY",     "NO_PROXY",           "http_proxy",
    "https_proxy", "no_proxy",   "STORAGE_DRIVER",  "REGISTRY_AUTH_FILE", "STORAGE_OPTS"};
constexpr std::array<std::string_view, 3> kBuildahPrefixes{"CONTAINERS_", "BUILDAH_",
                                                           "_CONTAINERS_"};

std::string_view name_of(std::string_view variable) {
    const auto equals = variable.find('=');
    return equals == std::string_view::npos ? std::string_view{} : variable.substr(0, equals);
}

bool listed(std::string_view name, const auto& names) {
    for (const auto candidate : names)
        if (name == candidate) return true;
    return false;
}

} // namespace

std::vector<std::string> host_program_environment(const std::string& program,
                                                  const std::vector<std::string>& caller) {
    const std::string_view base = std::string_view(program).substr(program.rfind('/') + 1);
    const bool buildah = base == "buildah";
    std::vector<std::string> env;
    bool path = false;
    for (const std::string& variable : caller) {
        const std::string_view name = name_of(variable);
        if (name.empty() || name.starts_with("OSF_")) continue;
        bool keep = listed(name, kEveryone);
        if (name == "PATH") keep = path = true;
        if (buildah) {
            keep = keep || listed(name, kBuildahNames);
            for (const auto prefix : kBuildahPrefixes)
                keep = keep || name.starts_with(prefix);
        }
        if (keep) env.push_back(variable);
    }
    if (!path) env.emplace(env.begin(), kDefaultPath);
    return env;
}

} // namespace osf::local
