// What `egress-log` prints by default: the request lines of an egress log,
// one JSON object per request, without the chain's own lines (kind start and
// kind checkpoint), so that `egress-log ID | jq -r .host` reads only hosts and
// counting lines counts requests. --raw prints the file as written (what
// verifying and saving use). Pure: bytes in, bytes out, in any chunking.
#pragma once

#include <string>
#include <string_view>

namespace osf::egress_log {

// True unless `line` is a JSON object with a "kind" (request lines have none).
// A line that is not JSON at all is passed on: a reader sees what is there.
bool is_request_line(std::string_view line);

class RequestLineFilter {
public:
    // The request lines that `chunk` completes (each with its newline).
    std::string feed(std::string_view chunk);
    // What is left of an unfinished last line, when it is a request line.
    std::string finish();

private:
    std::string pending_;
};

} // namespace osf::egress_log
