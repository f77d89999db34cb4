#include "kubernetes/kubectl/kubectl_error.hpp"

#include <algorithm>
#include <cctype>

namespace osf::kubernetes::kubectl {

namespace {

std::string trim(const std::string& text) {
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first == std::string::npos) return {};
    const auto last = text.find_last_not_of(" \t\r\n");
    return text.substr(first, last - first + 1);
}

// klog's header on kubectl's own log lines: "E1204 10:00:00.123456   1234 file.go:265] ".
std::string without_klog_header(const std::string& line) {
    if (line.size() < 6 || std::string("IWEF").find(line[0]) == std::string::npos ||
        !std::isdigit(static_cast<unsigned char>(line[1])))
        return line;
    const auto end = line.find("] ");
    if (end == std::string::npos || end > 64) return line;
    std::string message = line.substr(end + 2);
    // Newer kubectl logs structured: "Unhandled Error" err="<the error, Go-quoted>".
    constexpr std::string_view err_key = "\" err=\"";
    if (const auto at = message.find(err_key);
        message.rfind('"', 0) == 0 && at != std::string::npos && message.back() == '"') {
        std::string err;
        const std::string quoted =
            message.substr(at + err_key.size(), message.size() - at - err_key.size() - 1);
        for (std::size_t i = 0; i < quoted.size(); ++i)
            err += (quoted[i] == '\\' && i + 1 < quoted.size()) ? quoted[++i] : quoted[i];
        return err;
    }
    return message;
}

} // namespace

std::string condensed_message(const std::string& text) {
    // kubectl repeats one error per retry (nine lines against a server that
    // does not answer): each distinct line once, in order, with its count.
    std::vector<std::pair<std::string, int>> lines;
    std::size_t start = 0;
    while (start <= text.size()) {
        auto end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        const std::string line = trim(without_klog_header(trim(text.substr(start, end - start))));
        if (!line.empty()) {
            auto same = std::find_if(lines.begin(), lines.end(),
                                     [&line](const auto& seen) { return seen.first == line; });
            if (same == lines.end())
                lines.emplace_back(line, 1);
            else
                ++same->second;
        }
        start = end + 1;
    }
    std::string message;
    for (const auto& [line, count] : lines) {
        if (!message.empty()) message += "; ";
        message += line;
        if (count > 1) message += " (" + std::to_string(count) + " times)";
    }
    return message;
}

std::string describe_failure(const std::vector<std::string>& args, const KubectlResult& result) {
    const std::string command = args.empty() ? std::string("(none)") : args.front();
    std::string message = condensed_message(result.err);
    if (message.empty()) message = "exit code " + std::to_string(result.exit_code);
    return "kubectl " + command + " failed: " + message;
}

void check(const std::vector<std::string>& args, const KubectlResult& result) {
    if (!result.ok()) throw KubectlError(describe_failure(args, result));
}

} // namespace osf::kubernetes::kubectl
