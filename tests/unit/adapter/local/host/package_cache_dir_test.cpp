// The default ACL of a shared /cache: rwx for owner, group and others, in the
// kernel's xattr format, so files one sandbox makes the others can change.
#include "local/host/package_cache_dir.hpp"

#include <catch2/catch.hpp>

using namespace osf::local;

TEST_CASE("shared cache: the ACL blob the kernel takes") {
    const std::string acl = everyone_rwx_acl();
    const std::string expected("\x02\x00\x00\x00"                  // version 2
                               "\x01\x00\x07\x00\xff\xff\xff\xff"  // user::rwx
                               "\x04\x00\x07\x00\xff\xff\xff\xff"  // group::rwx
                               "\x20\x00\x07\x00\xff\xff\xff\xff", // other::rwx
                               28);
    CHECK(acl == expected);
}

TEST_CASE("shared cache: where it is") {
    const SandboxPaths paths = sandbox_paths("/state", "0123456789ab");
    osf::Spec spec;
    CHECK(package_cache_path("/state", paths, spec) == "/state/sandboxes/0123456789ab/cache");
    spec.cache = osf::PackageCache{"npm-cache"};
    CHECK(package_cache_path("/state", paths, spec) == "/state/caches/npm-cache");
}
