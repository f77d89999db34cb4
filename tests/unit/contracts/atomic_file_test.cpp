#include "osf/atomic_file.hpp"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace {

std::string read(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

struct TempDir {
    fs::path path = fs::temp_directory_path() / ("osf-atomic-" + std::to_string(::getpid()));
    TempDir() { fs::create_directories(path); }
    ~TempDir() { fs::remove_all(path); }
};

} // namespace

TEST_CASE("a file is replaced whole, with the mode asked for, and nothing is left beside it") {
    TempDir dir;
    const auto file = (dir.path / "listen.json").string();
    osf::write_file_atomically(file, "first\n", 0600);
    osf::write_file_atomically(file, "second\n", 0644);
    CHECK(read(file) == "second\n");
    struct stat st {};
    REQUIRE(::stat(file.c_str(), &st) == 0);
    CHECK((st.st_mode & 07777) == 0644);
    CHECK(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator()) == 1);
}

TEST_CASE("a file that cannot be written is named in the error") {
    TempDir dir;
    const auto file = (dir.path / "missing" / "ca.crt").string();
    CHECK_THROWS_WITH(osf::write_file_atomically(file, "x"),
                      Catch::Contains("cannot write " + file + ".new"));
}
