#include "local/host/package_cache_dir.hpp"

#include "local/state/sandbox_store.hpp"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <sys/stat.h>
#include <sys/xattr.h>

namespace osf::local {

namespace {

void append_u16(std::string& out, std::uint16_t value) {
    out.push_back(static_cast<char>(value & 0xff));
    out.push_back(static_cast<char>(value >> 8));
}

void append_u32(std::string& out, std::uint32_t value) {
    for (int shift = 0; shift < 32; shift += 8)
        out.push_back(static_cast<char>((value >> shift) & 0xff));
}

} // namespace

std::string everyone_rwx_acl() {
    // Version 2, then {tag, permissions, id} entries in tag order:
    // ACL_USER_OBJ, ACL_GROUP_OBJ, ACL_OTHER (little-endian, linux/posix_acl_xattr.h).
    constexpr std::uint16_t kUserObj = 0x01, kGroupObj = 0x04, kOther = 0x20, kRwx = 7;
    constexpr std::uint32_t kUndefinedId = 0xffffffff;
    std::string acl;
    append_u32(acl, 2);
    for (const std::uint16_t tag : {kUserObj, kGroupObj, kOther}) {
        append_u16(acl, tag);
        append_u16(acl, kRwx);
        append_u32(acl, kUndefinedId);
    }
    return acl;
}

std::string package_cache_path(const std::string& root, const SandboxPaths& paths,
                               const osf::Spec& spec) {
    return spec.cache ? caches_dir(root) + "/" + spec.cache->claim_name : paths.cache;
}

std::string package_cache_dir(const std::string& root, const SandboxPaths& paths,
                              const osf::Spec& spec) {
    if (!spec.cache) {
        ::mkdir(paths.cache.c_str(), 0700);
        return paths.cache;
    }
    const std::string caches = caches_dir(root);
    make_private_dirs(caches);
    ::chmod(caches.c_str(), 0711); // each sandbox's host id reaches only the cache it names
    const std::string dir = package_cache_path(root, paths, spec);
    if (::mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST)
        throw std::runtime_error("cannot create " + dir + ": " + std::strerror(errno));
    ::chmod(dir.c_str(), 0777);
    const std::string acl = everyone_rwx_acl();
    // Without ACL support (some file systems) new files follow the umask: the
    // sandbox that made a file alone can change it.
    ::setxattr(dir.c_str(), "system.posix_acl_default", acl.data(), acl.size(), 0);
    return dir;
}

} // namespace osf::local
