#include "local/copy/copy_out_policy.hpp"

#include "local/protocol/sandbox_text.hpp"

#include <array>
#include <cstdio>
#include <limits>
#include <string_view>
#include <sys/stat.h>
#include <utility>

namespace osf::local {

EntryType entry_type(mode_t mode) {
    switch (mode & S_IFMT) {
    case S_IFREG:
        return EntryType::regular;
    case S_IFDIR:
        return EntryType::directory;
    case S_IFLNK:
        return EntryType::symlink;
    case S_IFBLK:
        return EntryType::block_device;
    case S_IFCHR:
        return EntryType::character_device;
    case S_IFIFO:
        return EntryType::fifo;
    default:
        return EntryType::socket;
    }
}

CopyOutVerdict copy_out_verdict(const std::string& shown, EntryType type,
                                const std::string& link_target) {
    const std::string name = printable_name(shown);
    switch (type) {
    case EntryType::regular:
    case EntryType::directory:
        return {true, ""};
    case EntryType::symlink:
        return {false, "copy: skipped symlink " + name + " -> " + printable_name(link_target)};
    case EntryType::block_device:
        return {false, "copy: skipped block device " + name};
    case EntryType::character_device:
        return {false, "copy: skipped character device " + name};
    case EntryType::fifo:
        return {false, "copy: skipped fifo " + name};
    case EntryType::socket:
        return {false, "copy: skipped socket " + name};
    }
    return {false, "copy: skipped " + name};
}

mode_t copied_mode(mode_t mode) {
    return mode & 0777;
}

namespace {

// Digits, then nothing or one of the binary suffixes; nullopt past 2^63 or when malformed.
std::optional<unsigned long long> parse_count(std::string_view text, bool suffixes) {
    std::size_t digits = 0;
    unsigned long long value = 0;
    constexpr unsigned long long kMax = std::numeric_limits<long long>::max();
    while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') {
        value = value * 10 + static_cast<unsigned long long>(text[digits] - '0');
        if (value > kMax) return std::nullopt;
        ++digits;
    }
    if (digits == 0) return std::nullopt;
    const std::string_view suffix = text.substr(digits);
    if (suffix.empty()) return value;
    if (!suffixes) return std::nullopt;
    constexpr std::array<std::pair<std::string_view, int>, 4> kSuffixes{
        {{"Ki", 10}, {"Mi", 20}, {"Gi", 30}, {"Ti", 40}}};
    for (const auto& [name, shift] : kSuffixes)
        if (suffix == name) {
            if (value > (kMax >> shift)) return std::nullopt;
            return value << shift;
        }
    return std::nullopt;
}

} // namespace

std::variant<CopyBounds, std::string> copy_bounds(long long storage,
                                                  const std::optional<std::string>& limit,
                                                  const std::optional<std::string>& timeout) {
    CopyBounds bounds;
    bounds.bytes = storage > 0 ? static_cast<unsigned long long>(storage) : kCopyCeilingBytes;
    bounds.timeout = kCopyDefaultTimeout;
    if (limit) {
        const auto bytes = parse_count(*limit, true);
        if (!bytes || *bytes == 0)
            return std::string("OSF_SANDBOX_COPY_LIMIT must be a size in bytes (such as 512Mi)");
        bounds.bytes = *bytes;
    }
    if (timeout) {
        const auto seconds = parse_count(*timeout, false);
        if (!seconds || *seconds == 0 || *seconds > 30ULL * 24 * 3600)
            return std::string("OSF_SANDBOX_COPY_TIMEOUT must be seconds, from 1 to 2592000");
        bounds.timeout = std::chrono::seconds(static_cast<long long>(*seconds));
    }
    return bounds;
}

std::string shown_bytes(unsigned long long bytes) {
    constexpr std::array<std::pair<const char*, int>, 4> kUnits{
        {{"TiB", 40}, {"GiB", 30}, {"MiB", 20}, {"KiB", 10}}};
    for (const auto& [unit, shift] : kUnits)
        if (bytes >= (1ULL << shift)) {
            const unsigned long long whole = bytes >> shift;
            const unsigned long long tenths = ((bytes - (whole << shift)) * 10) >> shift;
            return std::to_string(whole) + (tenths != 0 ? "." + std::to_string(tenths) : "") + " " +
                   unit;
        }
    return std::to_string(bytes) + " bytes";
}

} // namespace osf::local
