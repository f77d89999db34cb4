// What a copy out of a sandbox brings onto the host: plain files and
// directories with rwx bits only; symlinks, devices, FIFOs and sockets are
// named on stderr (with the sandbox's names made printable) and left behind.
#include "local/copy/copy_out_policy.hpp"

#include <catch2/catch.hpp>
#include <sys/stat.h>

using namespace osf::local;

TEST_CASE("copy out keeps files and directories and names what it skips") {
    struct Row {
        EntryType type;
        std::string target;
        bool keep;
        std::string warning;
    };
    const Row rows[] = {
        {EntryType::regular, "", true, ""},
        {EntryType::directory, "", true, ""},
        {EntryType::symlink, "/etc/victim", false, "copy: skipped symlink d/x -> /etc/victim"},
        {EntryType::symlink, "../../x", false, "copy: skipped symlink d/x -> ../../x"},
        {EntryType::block_device, "", false, "copy: skipped block device d/x"},
        {EntryType::character_device, "", false, "copy: skipped character device d/x"},
        {EntryType::fifo, "", false, "copy: skipped fifo d/x"},
        {EntryType::socket, "", false, "copy: skipped socket d/x"},
    };
    for (const auto& row : rows) {
        const auto verdict = copy_out_verdict("d/x", row.type, row.target);
        CHECK(verdict.keep == row.keep);
        CHECK(verdict.warning == row.warning);
    }
}

TEST_CASE("a stat mode's type is read without following anything") {
    CHECK(entry_type(S_IFREG | 04755) == EntryType::regular);
    CHECK(entry_type(S_IFDIR | 01777) == EntryType::directory);
    CHECK(entry_type(S_IFLNK | 0777) == EntryType::symlink);
    CHECK(entry_type(S_IFBLK | 0600) == EntryType::block_device);
    CHECK(entry_type(S_IFCHR | 0666) == EntryType::character_device);
    CHECK(entry_type(S_IFIFO | 0644) == EntryType::fifo);
    CHECK(entry_type(S_IFSOCK | 0755) == EntryType::socket);
}

TEST_CASE("a copied mode keeps rwx and drops setuid, setgid and sticky") {
    const std::pair<mode_t, mode_t> rows[] = {
        {04755, 0755}, {02755, 0755}, {01777, 0777}, {07777, 0777},
        {0644, 0644},  {0700, 0700},  {0, 0},        {S_IFREG | 04711, 0711},
    };
    for (const auto& [given, kept] : rows)
        CHECK(copied_mode(given) == kept);
}

TEST_CASE("a skipped entry's warning names it printably") {
    CHECK(copy_out_verdict("d/\n", EntryType::symlink, "/x\n").warning ==
          "copy: skipped symlink d/\\x0a -> /x\\x0a");
}

TEST_CASE("a copy out is bounded by the variable, else the storage, else the ceiling") {
    using std::chrono::seconds;
    struct Row {
        long long storage;
        std::optional<std::string> limit, timeout;
        unsigned long long bytes;
        seconds wait;
    };
    const Row rows[] = {
        {0, {}, {}, kCopyCeilingBytes, kCopyDefaultTimeout},
        {64LL << 20, {}, {}, 64ULL << 20, kCopyDefaultTimeout},
        {64LL << 20, "1Gi", {}, 1ULL << 30, kCopyDefaultTimeout},
        {0, "512", "30", 512, seconds(30)},
        {0, "3Ki", {}, 3072, kCopyDefaultTimeout},
        {0, "2Ti", "2592000", 2ULL << 40, seconds(2592000)},
    };
    for (const auto& row : rows) {
        const auto bounds = copy_bounds(row.storage, row.limit, row.timeout);
        REQUIRE(std::holds_alternative<CopyBounds>(bounds));
        CHECK(std::get<CopyBounds>(bounds).bytes == row.bytes);
        CHECK(std::get<CopyBounds>(bounds).timeout == row.wait);
    }
}

TEST_CASE("a bad copy bound is one line naming the variable") {
    for (const std::string limit :
         {"", "0", "-1", "1G", "1.5Gi", "Mi", "10 Mi", "99999999999Ti", "18446744073709551616"}) {
        const auto bounds = copy_bounds(0, limit, std::nullopt);
        REQUIRE(std::holds_alternative<std::string>(bounds));
        CHECK(std::get<std::string>(bounds).starts_with("OSF_SANDBOX_COPY_LIMIT "));
    }
    for (const std::string timeout : {"", "0", "1m", "-5", "2592001"}) {
        const auto bounds = copy_bounds(0, std::nullopt, timeout);
        REQUIRE(std::holds_alternative<std::string>(bounds));
        CHECK(std::get<std::string>(bounds).starts_with("OSF_SANDBOX_COPY_TIMEOUT "));
    }
}

TEST_CASE("a bound reads as bytes, KiB, MiB, GiB or TiB") {
    CHECK(shown_bytes(512) == "512 bytes");
    CHECK(shown_bytes(1024) == "1 KiB");
    CHECK(shown_bytes(64ULL << 20) == "64 MiB");
    CHECK(shown_bytes(3ULL << 29) == "1.5 GiB");
    CHECK(shown_bytes(8ULL << 30) == "8 GiB");
    CHECK(shown_bytes(2ULL << 40) == "2 TiB");
}
