#include "kubernetes/exec_stderr_filter.hpp"

#include <algorithm>

namespace osf::kubernetes {

namespace {

constexpr std::string_view kTerminated = "command terminated with exit code ";
constexpr std::size_t kMaxCodeDigits = 3; // exit codes are 0..255
constexpr std::string_view kKubectlPrefixes[] = {"error: ", "Error from server",
                                                 "Error: ", "Unable to connect"};

bool starts_with(std::string_view text, std::string_view prefix) {
    return text.substr(0, prefix.size()) == prefix;
}

bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

// True when `text` is, or may still grow into, "command terminated with exit
// code N\n". kubectl prints it right after the command's last byte, also in
// the middle of a line the command did not end.
bool may_be_exit_line(std::string_view text) {
    if (text.size() <= kTerminated.size()) return starts_with(kTerminated, text);
    if (!starts_with(text, kTerminated)) return false;
    std::string_view rest = text.substr(kTerminated.size());
    if (rest.back() == '\n') rest.remove_suffix(1);
    if (rest.empty() && text.back() == '\n') return false;
    return rest.size() <= kMaxCodeDigits && std::all_of(rest.begin(), rest.end(), is_digit);
}

// True when `line` (starting a line, no newline before its end) is, or may
// still grow into, one of kubectl's error lines.
bool may_be_error_line(std::string_view line) {
    for (auto prefix : kKubectlPrefixes)
        if (starts_with(line, prefix) || starts_with(prefix, line)) return true;
    return false;
}

bool is_error_line(std::string_view line) {
    for (auto prefix : kKubectlPrefixes)
        if (starts_with(line, prefix)) return true;
    return false;
}

std::string_view trim(std::string_view text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' '))
        text.remove_suffix(1);
    return text;
}

} // namespace

void ExecStderrFilter::feed(std::string_view chunk) {
    if (chunk.empty()) return;
    std::string text = std::move(held_);
    text.append(chunk);
    // Only the last line may be held: its start, and whether that is a line's start.
    std::size_t line = 0;
    bool line_start = held_at_line_start_;
    if (text.size() >= 2) {
        const auto newline = text.rfind('\n', text.size() - 2);
        if (newline != std::string::npos) {
            line = newline + 1;
            line_start = true;
        }
    }
    // The earliest position from which the rest may be kubectl's last line.
    std::size_t keep = text.size();
    if (line_start && text.size() - line <= kMaxHeld &&
        may_be_error_line(std::string_view(text).substr(line))) {
        keep = line;
    } else {
        const std::size_t longest = kTerminated.size() + kMaxCodeDigits + 1;
        for (std::size_t at = std::max(line, text.size() - std::min(text.size(), longest));
             at < text.size(); ++at) {
            if (may_be_exit_line(std::string_view(text).substr(at))) {
                keep = at;
                break;
            }
        }
    }
    if (keep > 0) {
        forward_(std::string_view(text).substr(0, keep));
        held_at_line_start_ = text[keep - 1] == '\n';
    }
    held_ = text.substr(keep);
}

ExecStderrFilter::Ending ExecStderrFilter::finish(int kubectl_exit_code) {
    Ending ending;
    const std::string held = std::move(held_);
    held_.clear();
    if (kubectl_exit_code == 0) {
        if (!held.empty()) forward_(held);
        ending.command_exit_code = 0;
        return ending;
    }
    // kubectl's line comes last, right after the command's last byte.
    const std::string own_line = std::string(kTerminated) + std::to_string(kubectl_exit_code);
    for (const std::string& ending_line : {own_line + "\n", own_line}) {
        if (held.size() >= ending_line.size() &&
            std::string_view(held).substr(held.size() - ending_line.size()) == ending_line) {
            if (held.size() > ending_line.size())
                forward_(std::string_view(held).substr(0, held.size() - ending_line.size()));
            ending.command_exit_code = kubectl_exit_code;
            return ending;
        }
    }
    if (held_at_line_start_ && is_error_line(held)) {
        ending.kubectl_error = std::string(trim(held));
        return ending;
    }
    if (!held.empty()) forward_(held);
    return ending;
}

} // namespace osf::kubernetes
