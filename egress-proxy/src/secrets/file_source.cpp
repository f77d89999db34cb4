#include "secrets/file_source.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace osf::secrets {
namespace {

// Closes the descriptor on every path out.
struct FileDescriptor {
    int fd;
    ~FileDescriptor() {
        if (fd >= 0) ::close(fd);
    }
};

std::string drop_one_trailing_newline(std::string text) {
    if (text.ends_with("\r\n"))
        text.resize(text.size() - 2);
    else if (text.ends_with('\n'))
        text.pop_back();
    return text;
}

} // namespace

std::optional<std::string> file_name_problem(std::string_view name) {
    if (name.empty()) return "the file name is empty";
    if (name.find('/') != std::string_view::npos)
        return "the file name must not contain '/' (only files directly in the secrets "
               "directory can be used)";
    if (name.find("..") != std::string_view::npos) return "the file name must not contain '..'";
    if (name == ".") return "the file name must not be '.'";
    if (name.find('\0') != std::string_view::npos) return "the file name contains a NUL byte";
    return std::nullopt;
}

SourceResult read_file_secret(const std::string& name, const std::string& directory) {
    if (auto problem = file_name_problem(name)) return SourceResult::failure(*problem);
    const std::string path = (directory.empty() ? std::string(".") : directory) + "/" + name;

    FileDescriptor file{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK)};
    if (file.fd < 0) {
        const int error = errno;
        if (error == ENOENT)
            return SourceResult::failure("the file " + path +
                                         " does not exist (OSF_SECRETS_DIR is " + directory + ")");
        return SourceResult::failure("cannot open the file " + path + ": " + std::strerror(error));
    }
    struct stat status {};
    if (::fstat(file.fd, &status) != 0)
        return SourceResult::failure("cannot read the file " + path + ": " + std::strerror(errno));
    if (!S_ISREG(status.st_mode))
        return SourceResult::failure("the file " + path + " is not a regular file");
    if (static_cast<std::size_t>(status.st_size) > max_secret_file_size)
        return SourceResult::failure("the file " + path + " is larger than " +
                                     std::to_string(max_secret_file_size) + " bytes");

    std::string content;
    char buffer[4096];
    for (;;) {
        const ssize_t got = ::read(file.fd, buffer, sizeof buffer);
        if (got < 0) {
            if (errno == EINTR) continue;
            return SourceResult::failure("cannot read the file " + path + ": " +
                                         std::strerror(errno));
        }
        if (got == 0) break;
        content.append(buffer, static_cast<std::size_t>(got));
        if (content.size() > max_secret_file_size)
            return SourceResult::failure("the file " + path + " is larger than " +
                                         std::to_string(max_secret_file_size) + " bytes");
    }
    return SourceResult::success(drop_one_trailing_newline(std::move(content)));
}

} // namespace osf::secrets
