// A local sandbox's egress log and key for --verify, --summary and the
// save-log options: the stored key is read and checked, a suspended sandbox
// needs no checkpoint, a stopped one cannot give one.
#include "commands/command_errors.hpp"
#include "local/operations/local_log_access.hpp"
#include "local/state/local_layout.hpp"
#include "local/state/sandbox_store.hpp"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

using namespace osf::local;
namespace fs = std::filesystem;

namespace {

// An Ed25519 public key (PEM), as the proxy publishes one.
constexpr const char* kPem = "-----BEGIN PUBLIC KEY-----\n"
                             "MCowBQYDK2VwAyEAC2SM+2PV64BfZ+NPPYs8Il907pwyIB0eh5X/HiozaLA=\n"
                             "-----END PUBLIC KEY-----\n";
constexpr const char* kId = "0123456789ab";

struct SandboxDir {
    fs::path root = fs::temp_directory_path() / ("osf-log-access-" + std::to_string(::getpid()));
    SandboxPaths paths = sandbox_paths(root.string(), kId);
    SandboxDir() {
        fs::remove_all(root);
        fs::create_directories(paths.proxy_state);
    }
    ~SandboxDir() { fs::remove_all(root); }
    LocalLogAccess access() const {
        return LocalLogAccess(paths, kId, [](const std::string&) { return std::nullopt; });
    }
};

void write(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
}

} // namespace

TEST_CASE("local log key: the stored copy; missing or not Ed25519 is one clear failure") {
    SandboxDir dir;
    CHECK_THROWS_WITH(dir.access().key(), "sandbox 0123456789ab has no egress log key in " +
                                              dir.paths.log_key +
                                              " (made by an older sandbox-local?)");
    write(dir.paths.log_key, "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n");
    CHECK_THROWS_WITH(dir.access().key(), "the egress log key in " + dir.paths.log_key +
                                              " is not an Ed25519 public key");
    write(dir.paths.log_key, kPem);
    // What the proxy published in its own state directory is not what is trusted.
    write(dir.paths.published_log_key(), "anything");
    const auto key = dir.access().key();
    CHECK(key.pem == kPem);
    CHECK(key.raw.size() == 32);
}

TEST_CASE("local log checkpoint: none needed while suspended; a stopped sandbox has no proxy") {
    SandboxDir dir;
    SandboxMeta meta;
    meta.id = kId;
    meta.suspended_at = 1700000000;
    write_meta(dir.paths.meta, meta);
    CHECK_NOTHROW(dir.access().request_checkpoint());
    meta.suspended_at = 0;
    write_meta(dir.paths.meta, meta);
    CHECK_THROWS_AS(dir.access().request_checkpoint(), osf::commands::CommandFailed);
    CHECK_THROWS_WITH(dir.access().request_checkpoint(), "sandbox 0123456789ab is not running");
}

TEST_CASE("local log text: the proxy's file as it is; none is a failure naming the path") {
    SandboxDir dir;
    CHECK_THROWS_WITH(dir.access().text(), "no egress log at " + dir.paths.egress_log());
    write(dir.paths.egress_log(), "{\"a\":1}\n{\"b\"");
    CHECK(dir.access().text() == "{\"a\":1}\n{\"b\"");
}
