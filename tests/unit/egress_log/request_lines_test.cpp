#include "egress_log/request_lines.hpp"

#include <catch2/catch.hpp>
#include <string>

using osf::egress_log::is_request_line;
using osf::egress_log::RequestLineFilter;

namespace {

const std::string kStart = R"({"kind":"start","logId":"ab","publicKey":"k","chain":"00"})"
                           "\n";
const std::string kRequest = R"({"time":"t","host":"api.example","outcome":"allowed","chain":"1"})"
                             "\n";
const std::string kCheckpoint = R"({"kind":"checkpoint","lines":2,"signature":"s","chain":"2"})"
                                "\n";

} // namespace

TEST_CASE("request lines: the chain's start and checkpoint lines are left out") {
    CHECK(is_request_line(kRequest));
    CHECK_FALSE(is_request_line(kStart));
    CHECK_FALSE(is_request_line(kCheckpoint));
    // A host that merely spells the key is still a request.
    CHECK(is_request_line(R"({"host":"\"kind\":\"start\"","chain":"3"})"));
    // Not JSON: passed on, a reader sees what is there.
    CHECK(is_request_line("garbage"));

    const std::string log = kStart + kRequest + kCheckpoint + kRequest;
    RequestLineFilter whole;
    CHECK(whole.feed(log) + whole.finish() == kRequest + kRequest);
    // Any chunking gives the same lines; an unfinished request line comes out at finish.
    for (std::size_t size : {1U, 2U, 7U, 64U}) {
        RequestLineFilter filter;
        std::string out;
        const std::string cut = log + kRequest.substr(0, kRequest.size() - 1);
        for (std::size_t at = 0; at < cut.size(); at += size)
            out += filter.feed(std::string_view(cut).substr(at, size));
        out += filter.finish();
        CHECK(out == kRequest + kRequest + kRequest.substr(0, kRequest.size() - 1));
    }
}
