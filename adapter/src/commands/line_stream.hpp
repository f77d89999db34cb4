// An output stream that hands each complete line (without its '\n') to a
// function as soon as the line's end is written: how a command reads what a
// backend streams (egress-log --refused --follow) without holding it whole.
// The function returns false when no more is wanted (its reader is gone):
// the stream then fails, as a closed pipe would, and the writer stops.
#pragma once

#include <functional>
#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>

namespace osf::commands {

class LineBuffer : public std::streambuf {
public:
    using Handler = std::function<bool(std::string_view)>;
    explicit LineBuffer(Handler handler) : handler_(std::move(handler)) {}

    // A last line without '\n', once nothing more will be written.
    void finish();

protected:
    int_type overflow(int_type c) override;
    std::streamsize xsputn(const char* data, std::streamsize size) override;

private:
    // How much of `text` was taken: all of it, unless the handler said stop.
    std::size_t append(std::string_view text);
    void hand_over();

    Handler handler_;
    std::string pending_; // the line being written
    bool stopped_ = false;
};

class LineStream : public std::ostream {
public:
    explicit LineStream(LineBuffer::Handler handler)
        : std::ostream(nullptr), buffer_(std::move(handler)) {
        rdbuf(&buffer_);
    }
    void finish() { buffer_.finish(); }

private:
    LineBuffer buffer_;
};

} // namespace osf::commands
