#include "local/protocol/exec_protocol.hpp"
#include "process/wait.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <nlohmann/json.hpp>
#include <sys/wait.h>

using namespace osf::local;

TEST_CASE("exec protocol: requests and answers round-trip; anything else is refused") {
    ExecMessage message{{"sh", "-c", "echo \"hi\""}, true, "xterm"};
    const auto decoded = decode_exec_message(encode_exec_message(message));
    REQUIRE(decoded);
    CHECK(decoded->command == message.command);
    CHECK(decoded->terminal);
    CHECK(decoded->term == "xterm");
    CHECK_FALSE(decode_exec_message("not json"));
    CHECK_FALSE(decode_exec_message(R"({"command":[]})"));
    CHECK_FALSE(decode_exec_message(R"({"command":[1]})"));
    CHECK(decode_exit(encode_exit(0)) == 0);
    CHECK(decode_exit(encode_exit(137)) == 137);
    CHECK_FALSE(decode_exit("exit 7"));
    CHECK_FALSE(decode_exit("exit 300\n"));
    CHECK_FALSE(decode_exit(""));
    CHECK(osf::process::exit_code_of(7 << 8) == 7);
    CHECK(osf::process::exit_code_of(SIGKILL) == 137);
}
