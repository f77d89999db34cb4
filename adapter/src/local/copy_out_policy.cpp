#include "local/copy_out_policy.hpp"

#include <cstdio>
#include <sys/stat.h>

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

std::string printable_name(const std::string& name) {
    std::string out;
    for (const char c : name) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte < 0x20 || byte == 0x7f || c == '\\') {
            char escaped[5];
            std::snprintf(escaped, sizeof escaped, "\\x%02x", byte);
            out += escaped;
        } else {
            out += c;
        }
    }
    return out;
}

} // namespace osf::local
