#include "commands/exec_stderr_filter.hpp"

#include <algorithm>
#include <charconv>

namespace osf::commands {

namespace {

constexpr std::string_view kTerminated = "command terminated with exit code ";
constexpr std::string_view kKubectlPrefixes[] = {"error: ", "Error from server",
                                                 "Error: ", "Unable to connect"};

bool starts_with(std::string_view text, std::string_view prefix) {
    return text.substr(0, prefix.size()) == prefix;
}

// True when `line` (a whole line) may be one of kubectl's own.
bool kubectl_like(std::string_view line) {
    if (starts_with(line, kTerminated)) return true;
    for (auto prefix : kKubectlPrefixes)
        if (starts_with(line, prefix)) return true;
    return false;
}

// True when `text` could still grow into one of kubectl's lines.
bool may_become_kubectl_like(std::string_view text) {
    auto prefix_of = [&](std::string_view pattern) {
        const std::size_t n = std::min(text.size(), pattern.size());
        return text.substr(0, n) == pattern.substr(0, n);
    };
    if (prefix_of(kTerminated)) return true;
    for (auto prefix : kKubectlPrefixes)
        if (prefix_of(prefix)) return true;
    return false;
}

std::string trim(std::string text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' '))
        text.pop_back();
    return text;
}

} // namespace

void ExecStderrFilter::release_held() {
    if (!held_.empty()) forward_(held_);
    held_.clear();
}

void ExecStderrFilter::complete_line(std::string line) {
    release_held();
    if (kubectl_like(line))
        held_ = std::move(line);
    else
        forward_(line);
}

void ExecStderrFilter::feed(std::string_view chunk) {
    while (!chunk.empty()) {
        const auto newline = chunk.find('\n');
        const std::string_view piece =
            chunk.substr(0, newline == std::string_view::npos ? chunk.size() : newline + 1);
        chunk.remove_prefix(piece.size());
        if (mid_line_) {
            // The start of this line was forwarded already: so is the rest.
            forward_(piece);
            if (piece.back() == '\n') mid_line_ = false;
            continue;
        }
        partial_.append(piece);
        if (partial_.back() == '\n') {
            complete_line(std::move(partial_));
            partial_.clear();
        } else if (!may_become_kubectl_like(partial_)) {
            // An unfinished line (a prompt, say) goes out now, not when it ends.
            release_held();
            forward_(partial_);
            partial_.clear();
            mid_line_ = true;
        }
    }
}

ExecStderrFilter::Ending ExecStderrFilter::finish(int kubectl_exit_code) {
    if (!partial_.empty()) {
        complete_line(std::move(partial_));
        partial_.clear();
    }
    Ending ending;
    const std::string line = trim(held_);
    if (starts_with(line, kTerminated)) {
        int code = 0;
        const std::string_view digits = std::string_view(line).substr(kTerminated.size());
        const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), code);
        if (ec == std::errc() && end == digits.data() + digits.size()) {
            ending.command_exit_code = code;
            held_.clear();
            return ending;
        }
    }
    if (kubectl_exit_code != 0 && !line.empty() && !starts_with(line, kTerminated)) {
        ending.kubectl_error = line;
        held_.clear();
        return ending;
    }
    release_held();
    return ending;
}

} // namespace osf::commands
