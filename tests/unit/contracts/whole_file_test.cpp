#include "osf/whole_file.hpp"

#include <catch2/catch.hpp>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace fs = std::filesystem;

namespace {

fs::path fresh_dir() {
    const auto dir = fs::temp_directory_path() / ("osf-whole-file-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

} // namespace

TEST_CASE("read_whole_file returns every byte, NULs and a file larger than one read included") {
    const auto dir = fresh_dir();
    std::string bytes("a\0b\nc", 5);
    bytes += std::string(200 * 1024, 'x');
    std::ofstream(dir / "f", std::ios::binary) << bytes;
    CHECK(osf::read_whole_file((dir / "f").string()) == bytes);
    std::ofstream(dir / "empty").close();
    CHECK(osf::read_whole_file((dir / "empty").string()) == std::string());
    fs::remove_all(dir);
}

TEST_CASE("read_whole_file refuses a missing file and a directory, errno saying why") {
    const auto dir = fresh_dir();
    errno = 0;
    CHECK_FALSE(osf::read_whole_file((dir / "missing").string()).has_value());
    CHECK(errno == ENOENT);
    errno = 0;
    CHECK_FALSE(osf::read_whole_file(dir.string()).has_value());
    CHECK(errno == EISDIR);
    fs::remove_all(dir);
}
