// What a host program the CLI starts sees of the caller's environment: the
// PATH and the locale, buildah its storage and proxy variables; never a
// secret (OSF_SECRET_*, OSF_OPENBAO_TOKEN) nor anything else.
#include "local/host/host_environment.hpp"

#include <algorithm>
#include <catch2/catch.hpp>

using namespace osf::local;

namespace {

const std::vector<std::string> kCaller = {
    "PATH=/opt/bin:/usr/bin",
    "HOME=/home/u",
    "LANG=C.UTF-8",
    "OSF_SECRET_GITHUB_TOKEN=ghp_real",
    "OSF_OPENBAO_TOKEN=s.real",
    "AWS_SECRET_ACCESS_KEY=real",
    "CONTAINERS_STORAGE_CONF=/etc/s.conf",
    "_CONTAINERS_USERNS_CONFIGURED=1",
    "BUILDAH_ISOLATION=chroot",
    "HTTPS_PROXY=http://proxy:3128",
    "XDG_RUNTIME_DIR=/run/user/1000",
    "LD_PRELOAD=/tmp/x.so",
    "notavariable",
};

} // namespace

TEST_CASE("a host program gets the PATH and the locale, buildah its own variables too") {
    struct Row {
        std::string program;
        std::vector<std::string> env;
    };
    const Row rows[] = {
        {"tar", {"PATH=/opt/bin:/usr/bin", "LANG=C.UTF-8"}},
        {"bwrap", {"PATH=/opt/bin:/usr/bin", "LANG=C.UTF-8"}},
        {"/usr/sbin/mkfs.ext4", {"PATH=/opt/bin:/usr/bin", "LANG=C.UTF-8"}},
        {"buildah",
         {"PATH=/opt/bin:/usr/bin", "HOME=/home/u", "LANG=C.UTF-8",
          "CONTAINERS_STORAGE_CONF=/etc/s.conf", "_CONTAINERS_USERNS_CONFIGURED=1",
          "BUILDAH_ISOLATION=chroot", "HTTPS_PROXY=http://proxy:3128",
          "XDG_RUNTIME_DIR=/run/user/1000"}},
        {"/usr/bin/buildah",
         {"PATH=/opt/bin:/usr/bin", "HOME=/home/u", "LANG=C.UTF-8",
          "CONTAINERS_STORAGE_CONF=/etc/s.conf", "_CONTAINERS_USERNS_CONFIGURED=1",
          "BUILDAH_ISOLATION=chroot", "HTTPS_PROXY=http://proxy:3128",
          "XDG_RUNTIME_DIR=/run/user/1000"}},
    };
    for (const auto& row : rows)
        CHECK(host_program_environment(row.program, kCaller) == row.env);
}

TEST_CASE("no secret reaches any host program") {
    for (const std::string program : {"tar", "bwrap", "buildah", "cp", "egress-proxy"})
        for (const auto& variable : host_program_environment(program, kCaller)) {
            CHECK_FALSE(variable.starts_with("OSF_"));
            CHECK(variable.find("real") == std::string::npos);
            CHECK_FALSE(variable.starts_with("LD_PRELOAD="));
        }
}

TEST_CASE("without a PATH the program gets the default one") {
    CHECK(host_program_environment("tar", {"OSF_SECRET_X=y"}) ==
          std::vector<std::string>{
              "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"});
}
