#include "kubernetes/manifests/exec_relay.hpp"
#include "sandbox/exec_stop.hpp"

#include <catch2/catch.hpp>

using namespace osf::kubernetes::manifests;
using namespace osf::sandbox;

TEST_CASE("exec relay: the marked command, quoted, goes to the relay, not into its argv") {
    const auto argv = relayed_command("feedfacecafe", {"npm", "test"});
    REQUIRE(argv.size() == 6);
    CHECK(argv[0] == "sh");
    CHECK(argv[1] == "-c");
    CHECK_THAT(argv[2], Catch::Contains("exec sh \"$d/relay\" \"$d\""));
    CHECK(argv[3] == "osf-exec");
    // The drain is written in; the script exits with the command's status.
    CHECK_THAT(argv[4], Catch::Contains("sleep " + std::to_string(kExecOutputDrain.count())) &&
                            Catch::Contains("exit \"$code\"") && Catch::Contains("mkfifo"));
    CHECK_THAT(argv[4], !Catch::Contains("DRAIN"));
    CHECK(argv[5] == shell_quoted(marked_command("feedfacecafe", {"npm", "test"})));
    CHECK_THAT(argv[5], Catch::EndsWith("'osf-exec' 'OSF_EXEC_ID=feedfacecafe' 'npm' 'test'"));
}

TEST_CASE("exec relay: words are quoted for sh whatever they hold") {
    CHECK(shell_quoted({}).empty());
    CHECK(shell_quoted({""}) == "''");
    CHECK(shell_quoted({"it's", "a b", "$HOME", "`x`", "\\n", "line\nnext"}) ==
          "'it'\\''s' 'a b' '$HOME' '`x`' '\\n' 'line\nnext'");
    CHECK(shell_quoted({"'"}) == "''\\'''");
}
