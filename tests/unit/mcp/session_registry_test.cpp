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

// Issue 26, class 1: bounded by bytes and time, not only by count.
TEST_CASE("the registry holds no id over its size and forgets past its byte ceiling") {
    SessionRegistry registry(4096, 256, 64 * 1024);
    CHECK_FALSE(SessionRegistry::recordable(std::string(513, 's'), "1"));
    CHECK_FALSE(SessionRegistry::recordable("s", std::string(513, '1')));
    CHECK(SessionRegistry::recordable(std::string(512, 's'), std::string(512, '1')));
    registry.expect_tools_list(std::string(100000, 's'), "1");
    registry.expect_refusal("s", std::string(100000, '1'), "answer");
    CHECK(registry.session_count() == 0);
    CHECK(registry.bytes() == 0);

    // 1,000 sessions of 1 KiB of refusal text each: the oldest go, the newest stay.
    for (int i = 0; i < 1000; ++i)
        registry.expect_refusal("session-" + std::to_string(i), "1", std::string(1024, 'x'));
    CHECK(registry.bytes() <= 64 * 1024);
    CHECK(registry.session_count() < 70);
    CHECK(registry.take_refusal("session-999", "1"));
    CHECK_FALSE(registry.take_refusal("session-0", "1"));
    // What is taken or forgotten is no longer counted.
    for (int i = 0; i < 1000; ++i)
        registry.forget("session-" + std::to_string(i));
    CHECK(registry.bytes() == 0);
}

TEST_CASE("a session nothing touches for max_idle is forgotten") {
    auto now = std::chrono::steady_clock::time_point{} + std::chrono::hours(1);
    SessionRegistry registry(4096, 256, 8 << 20, std::chrono::seconds(60), [&] { return now; });
    registry.expect_refusal("never-streamed", "1", "answer");
    registry.expect_tools_list("active", "1");
    now += std::chrono::seconds(45);
    CHECK(registry.take_tools_list("active", "1")); // touched
    registry.expect_tools_list("active", "2");
    now += std::chrono::seconds(30);
    registry.expect_tools_list("active", "3"); // the sweep: never-streamed is 75 s idle
    CHECK(registry.session_count() == 1);
    CHECK_FALSE(registry.take_refusal("never-streamed", "1"));
    CHECK(registry.take_tools_list("active", "2"));
}
