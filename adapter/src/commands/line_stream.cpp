#include "commands/line_stream.hpp"

namespace osf::commands {

void LineBuffer::hand_over() {
    // Moved out first: a handler that throws leaves no half line behind.
    const std::string line = std::move(pending_);
    pending_.clear();
    if (!handler_(line)) stopped_ = true;
}

std::size_t LineBuffer::append(std::string_view text) {
    std::size_t taken = 0;
    while (!stopped_ && taken < text.size()) {
        const auto newline = text.find('\n', taken);
        if (newline == std::string_view::npos) {
            pending_.append(text.substr(taken));
            return text.size();
        }
        pending_.append(text.substr(taken, newline - taken));
        taken = newline + 1;
        hand_over();
    }
    return stopped_ ? 0 : taken;
}

LineBuffer::int_type LineBuffer::overflow(int_type c) {
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    const char ch = traits_type::to_char_type(c);
    return append(std::string_view(&ch, 1)) == 1 ? c : traits_type::eof();
}

std::streamsize LineBuffer::xsputn(const char* data, std::streamsize size) {
    return static_cast<std::streamsize>(
        append(std::string_view(data, static_cast<std::size_t>(size))));
}

void LineBuffer::finish() {
    if (!stopped_ && !pending_.empty()) hand_over();
}

} // namespace osf::commands
