#include "mcp/session_registry.hpp"

#include <catch2/catch.hpp>
#include <thread>
#include <vector>

using osf::mcp::session_id_from_url;
using osf::mcp::SessionRegistry;

TEST_CASE("session ids come from the sessionId query parameter") {
    CHECK(session_id_from_url("/messages?sessionId=3f2a-77") == "3f2a-77");
    CHECK(session_id_from_url("https://wiki.example.com/messages?x=1&sessionId=a%2Fb#frag") ==
          "a/b");
    CHECK_FALSE(session_id_from_url("/messages"));
    CHECK_FALSE(session_id_from_url("/messages?session=1"));
    CHECK_FALSE(session_id_from_url("/messages#?sessionId=1"));
}

TEST_CASE("expected tools/list answers are matched once, per session") {
    SessionRegistry registry;
    registry.expect_tools_list("s1", "1");
    registry.expect_tools_list("s1", "\"a\"");
    CHECK_FALSE(registry.take_tools_list("s2", "1"));
    CHECK_FALSE(registry.take_tools_list("s1", "\"1\""));
    CHECK(registry.take_tools_list("s1", "1"));
    CHECK_FALSE(registry.take_tools_list("s1", "1"));
    CHECK(registry.take_tools_list("s1", "\"a\""));
    registry.forget("s1");
    CHECK(registry.session_count() == 0);
}

TEST_CASE("the registry is bounded") {
    SessionRegistry registry(2, 2);
    registry.expect_tools_list("a", "1");
    registry.expect_tools_list("b", "1");
    registry.expect_tools_list("c", "1"); // forgets "a", the oldest
    CHECK(registry.session_count() == 2);
    CHECK_FALSE(registry.take_tools_list("a", "1"));
    CHECK(registry.take_tools_list("c", "1"));
    registry.expect_tools_list("b", "2");
    registry.expect_tools_list("b", "3"); // forgets id 1 of "b"
    CHECK_FALSE(registry.take_tools_list("b", "1"));
    CHECK(registry.take_tools_list("b", "3"));
}

TEST_CASE("the registry can be used from several threads") {
    SessionRegistry registry(100000, 100000);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&registry, t] {
            std::string session = "s" + std::to_string(t);
            for (int i = 0; i < 2000; ++i)
                registry.expect_tools_list(session, std::to_string(i));
            for (int i = 0; i < 2000; ++i) {
                if (!registry.take_tools_list(session, std::to_string(i)))
                    throw std::runtime_error("lost");
            }
        });
    }
    for (auto& thread : threads)
        thread.join();
    CHECK(registry.session_count() == 4);
}
