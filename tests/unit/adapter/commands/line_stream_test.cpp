// Whole lines out of a stream written in arbitrary pieces.
#include "commands/line_stream.hpp"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

using osf::commands::LineStream;

TEST_CASE("line stream: each complete line once, whatever the pieces") {
    std::vector<std::string> lines;
    LineStream stream([&](std::string_view line) {
        lines.emplace_back(line);
        return true;
    });
    stream << "{\"a\":" << 1 << "}\n{\"b\"";
    CHECK(lines == std::vector<std::string>{"{\"a\":1}"});
    stream << ":2}\n\nlast" << std::flush;
    CHECK(lines == std::vector<std::string>{"{\"a\":1}", "{\"b\":2}", ""});
    stream.put('!');
    stream.finish();
    CHECK(lines == std::vector<std::string>{"{\"a\":1}", "{\"b\":2}", "", "last!"});
    stream.finish(); // nothing pending: nothing more
    CHECK(lines.size() == 4);
    CHECK(stream.good());
}

TEST_CASE("line stream: a line longer than any buffer arrives whole") {
    std::string seen;
    LineStream stream([&](std::string_view line) {
        seen = line;
        return true;
    });
    const std::string long_line(200000, 'x');
    stream.write(long_line.data(), static_cast<std::streamsize>(long_line.size()));
    CHECK(seen.empty());
    stream << "\n";
    CHECK(seen == long_line);
}

TEST_CASE("line stream: once the handler says stop, the stream fails and hands over no more") {
    std::vector<std::string> lines;
    LineStream stream([&](std::string_view line) {
        lines.emplace_back(line);
        return false; // the reader is gone
    });
    stream << "one\ntwo\n";
    CHECK(lines == std::vector<std::string>{"one"});
    CHECK_FALSE(stream.good());
    stream.clear();
    stream << "three\n";
    stream.finish();
    CHECK(lines.size() == 1);
}
