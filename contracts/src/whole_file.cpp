#include "osf/whole_file.hpp"

#include <fstream>
#include <iterator>

namespace osf {

std::optional<std::string> read_whole_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    return std::string(std::istreambuf_iterator<char>(in), {});
}

} // namespace osf
