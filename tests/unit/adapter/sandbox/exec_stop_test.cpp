#include "request_fixture.hpp"
#include "sandbox/exec_stop.hpp"
#include "sandbox/lifetime.hpp"
#include "sandbox/settings.hpp"

#include <catch2/catch.hpp>
#include <map>

using namespace osf::sandbox;
using namespace std::chrono_literals;

TEST_CASE("exec stopping: the marked command and the stop script's arguments") {
    const auto marked = marked_command("feedfacecafe", {"npm", "test"});
    REQUIRE(marked.size() == 7);
    CHECK(marked[0] == "sh");
    CHECK(marked[3] == "osf-exec");
    CHECK(std::vector<std::string>(marked.begin() + 4, marked.end()) ==
          std::vector<std::string>{"OSF_EXEC_ID=feedfacecafe", "npm", "test"});
    const auto stop = stop_command("feedfacecafe", 5s);
    REQUIRE(stop.size() == 6);
    CHECK(stop[0] == "sh");
    CHECK(stop[1] == "-c");
    CHECK(stop[3] == "sh");
    CHECK(stop[4] == "feedfacecafe");
    CHECK(stop[5] == "5");
    CHECK_THAT(stop[2], Catch::Contains("kill -TERM") && Catch::Contains("kill -KILL") &&
                            Catch::Contains("OSF_EXEC_ID=$1"));
}
