// The placeholder AWS credentials: the shapes the SDKs expect, distinct per
// secret, stable (the proxy and the adapters compute them apart).
#include "osf/aws_placeholder.hpp"

#include <algorithm>
#include <catch2/catch.hpp>

TEST_CASE("placeholder AWS credentials look real and are the name's own") {
    const auto id = osf::aws_placeholder_access_key_id("AWS");
    CHECK(id.size() == 20);
    CHECK(id.starts_with("AKIA"));
    CHECK(std::all_of(id.begin(), id.end(),
                      [](char c) { return (c >= 'A' && c <= 'Z') || (c >= '2' && c <= '7'); }));
    CHECK(osf::aws_placeholder_secret_access_key("AWS").size() == 40);
    CHECK(osf::aws_placeholder_access_key_id("AWS") == id);
    CHECK(osf::aws_placeholder_access_key_id("AWS2") != id);
    CHECK(osf::aws_placeholder_secret_access_key("AWS2") !=
          osf::aws_placeholder_secret_access_key("AWS"));
    CHECK(osf::aws_placeholder_session_token("AWS") == "osf-aws-session-token-placeholder-AWS");
}
