// A file secret whose file is replaced is re-read on the next use.
#include "secrets/live_secrets.hpp"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <unistd.h>

using osf::secrets::LiveSecrets;
using osf::secrets::Secret;
using osf::secrets::SecretStore;

namespace {

struct Directory {
    std::filesystem::path path;
    Directory() {
        path = std::filesystem::temp_directory_path() /
               ("osf-live-secrets-" + std::to_string(::getpid()));
        std::filesystem::create_directories(path);
    }
    ~Directory() {
        std::error_code ignored;
        std::filesystem::remove_all(path, ignored);
    }
    // As a rotation job does: a new file renamed over the old one.
    void write(const std::string& name, const std::string& text) const {
        const auto temporary = path / (name + ".new");
        std::ofstream(temporary) << text;
        std::filesystem::rename(temporary, path / name);
    }
};

} // namespace

TEST_CASE("a file secret replaced by rename is used from the next look, and named once") {
    Directory dir;
    dir.write("token", "first-value\n");
    Secret secret{"TOKEN", "osf-secret-placeholder-TOKEN", "first-value", {}, {}};
    secret.file = (dir.path / "token").string();
    LiveSecrets live{SecretStore({secret})};
    std::vector<std::string> rotated;
    live.on_rotation([&](const std::string& name, const SecretStore&) { rotated.push_back(name); });

    CHECK(live.current()->secrets()[0].value == "first-value");
    CHECK(rotated.empty());
    const auto before = live.snapshot();

    dir.write("token", "second-value\n");
    CHECK(live.current()->secrets()[0].value == "second-value");
    CHECK(rotated == std::vector<std::string>{"TOKEN"});
    CHECK(before->secrets()[0].value == "first-value"); // a request in flight keeps its store
    CHECK(live.current()->secrets()[0].value == "second-value");
    CHECK(rotated.size() == 1);

    SECTION("a file that cannot be used keeps the value in force") {
        dir.write("token", "");
        CHECK(live.current()->secrets()[0].value == "second-value");
        std::filesystem::remove(dir.path / "token");
        CHECK(live.current()->secrets()[0].value == "second-value");
        CHECK(rotated.size() == 1);
    }
}

TEST_CASE("secrets not from files are never looked at again") {
    LiveSecrets live{SecretStore({Secret{"A", "osf-secret-placeholder-A", "v", {}, {}}})};
    CHECK(!live.has_files());
    CHECK(live.current() == live.snapshot());
}
