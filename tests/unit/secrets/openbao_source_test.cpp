// ref:openbao: the request sent, and every answer turned into a value or a
// clear message. The HTTP client is replaced by a fake here; the real one is
// exercised against tests/openbao/server.py in http_get_test.cpp.
#include "secrets/openbao_address.hpp"
#include "secrets/openbao_reply.hpp"
#include "secrets/secret_loader.hpp"
#include "test_support.hpp"

#include <catch2/catch.hpp>

using osf::SecretRef;
using osf::secrets::HttpGetReply;
using osf::secrets::HttpGetRequest;
using secrets_test::fake_env;
using secrets_test::ref;
using secrets_test::spec_with;

namespace {

const std::string bao_token = "s.tok3n-never-printed";

std::map<std::string, std::string> bao_env(std::map<std::string, std::string> extra = {}) {
    std::map<std::string, std::string> env{{"OSF_OPENBAO_ADDR", "https://bao.example:8200"},
                                           {"OSF_OPENBAO_TOKEN", bao_token}};
    for (auto& [name, value] : extra)
        env[name] = value;
    return env;
}

std::string kv2(const std::string& data_json) {
    return R"({"request_id":"r","lease_id":"","renewable":false,"lease_duration":0,"data":{"data":)" +
           data_json +
           R"(,"metadata":{"created_time":"2024-01-01T00:00:00Z","custom_metadata":null,"deletion_time":"","destroyed":false,"version":1}},"wrap_info":null,"warnings":null,"auth":null})";
}

struct Recorder {
    std::vector<HttpGetRequest> requests;
    HttpGetReply reply;
    osf::secrets::HttpGetter getter() {
        return [this](const HttpGetRequest& request) {
            requests.push_back(request);
            return reply;
        };
    }
};

HttpGetReply answer(int status, std::string body) {
    HttpGetReply reply;
    reply.status = status;
    reply.body = std::move(body);
    return reply;
}

std::string load_error(Recorder& recorder, std::map<std::string, std::string> env = bao_env(),
                       const std::string& path = "app/linear") {
    auto loaded =
        osf::secrets::load_secrets(spec_with({{"LINEAR", ref(SecretRef::Kind::OpenBao, path)}}),
                                   fake_env(std::move(env)), recorder.getter());
    CHECK(loaded.error.find(bao_token) == std::string::npos);
    return loaded.error;
}

} // namespace

TEST_CASE("ref:openbao reads field value of the KV v2 secret with the token") {
    Recorder bao;
    bao.reply = answer(200, kv2(R"({"value":"lin_real_value","other":"x"})"));
    auto env = fake_env(bao_env());
    env.extra_ca_bundle = "/tmp/upstream-ca.pem";
    const auto loaded = osf::secrets::load_secrets(
        spec_with({{"LINEAR", ref(SecretRef::Kind::OpenBao, "app/linear")}}), env, bao.getter());

    REQUIRE(loaded.error.empty());
    CHECK(loaded.store.secrets()[0].value == "lin_real_value");
    REQUIRE(bao.requests.size() == 1);
    const auto& request = bao.requests[0];
    CHECK(request.tls);
    CHECK(request.host == "bao.example");
    CHECK(request.port == "8200");
    CHECK(request.target == "/v1/secret/data/app/linear");
    CHECK(request.headers ==
          std::vector<std::pair<std::string, std::string>>{{"X-Vault-Token", bao_token}});
    CHECK(request.extra_ca_files == std::vector<std::string>{"/tmp/upstream-ca.pem"});
    CHECK(request.timeout == std::chrono::seconds(10));
}

TEST_CASE("OSF_OPENBAO_MOUNT and OSF_OPENBAO_CACERT are honoured; paths are encoded") {
    Recorder bao;
    bao.reply = answer(200, kv2(R"({"value":"v"})"));
    CHECK(load_error(bao,
                     bao_env({{"OSF_OPENBAO_MOUNT", "team/kv"},
                              {"OSF_OPENBAO_CACERT", "/etc/bao-ca.pem"},
                              {"OSF_OPENBAO_ADDR", "https://[::1]:8200/prefix/"}}),
                     "my app/tök?x")
              .empty());
    REQUIRE(bao.requests.size() == 1);
    CHECK(bao.requests[0].host == "::1");
    CHECK(bao.requests[0].target == "/prefix/v1/team/kv/data/my%20app/t%C3%B6k%3Fx");
    CHECK(bao.requests[0].extra_ca_files == std::vector<std::string>{"/etc/bao-ca.pem"});
}

TEST_CASE("missing address or token each have their own message") {
    Recorder bao;
    CHECK(load_error(bao, {{"OSF_OPENBAO_TOKEN", bao_token}}) ==
          "secret LINEAR (ref:openbao/app/linear): OSF_OPENBAO_ADDR is not set (it must name the "
          "OpenBao server, e.g. https://openbao.example:8200)");
    CHECK(load_error(bao, {{"OSF_OPENBAO_ADDR", "https://bao.example"}}) ==
          "secret LINEAR (ref:openbao/app/linear): OSF_OPENBAO_TOKEN is not set");
    CHECK(load_error(
              bao, {{"OSF_OPENBAO_ADDR", "https://bao.example"}, {"OSF_OPENBAO_TOKEN", "abc\ndef"}})
              .find("OSF_OPENBAO_TOKEN contains a control character") != std::string::npos);
    CHECK(bao.requests.empty());
}

TEST_CASE("403, 404 and other statuses have their own messages") {
    Recorder bao;
    bao.reply = answer(403, R"({"errors":["permission denied"]})");
    CHECK(load_error(bao) ==
          "secret LINEAR (ref:openbao/app/linear): OpenBao denied reading secret/data/app/linear "
          "(403 permission denied): OSF_OPENBAO_TOKEN is invalid or expired, or its policy does "
          "not allow read on this path");
    bao.reply = answer(404, R"({"errors":[]})");
    CHECK(load_error(bao) ==
          "secret LINEAR (ref:openbao/app/linear): OpenBao has no secret secret/data/app/linear "
          "(404): check the path and OSF_OPENBAO_MOUNT, which must name a KV version 2 mount");
    bao.reply = answer(
        404, R"({"data":{"data":null,"metadata":{"deletion_time":"2024-01-01T00:00:00Z"}}})");
    CHECK(load_error(bao).ends_with("the latest version of secret/data/app/linear is deleted in "
                                    "OpenBao (404)"));
    bao.reply = answer(503, R"({"errors":["Vault is sealed"]})");
    CHECK(load_error(bao).ends_with(
        "OpenBao answered HTTP 503 for secret/data/app/linear: Vault is sealed"));
}

TEST_CASE("a secret without a string field value is refused, naming only field names") {
    Recorder bao;
    bao.reply = answer(200, kv2(R"({"password":"hunter2-real","user":"bob"})"));
    const auto missing = load_error(bao);
    CHECK(missing == "secret LINEAR (ref:openbao/app/linear): the secret secret/data/app/linear in "
                     "OpenBao has no field \"value\" (its fields: password, user)");
    CHECK(missing.find("hunter2") == std::string::npos);

    bao.reply = answer(200, kv2(R"({"value":12345})"));
    CHECK(load_error(bao).ends_with(
        "the field \"value\" of secret/data/app/linear in OpenBao is a number, not a string"));
    bao.reply = answer(200, R"({"data":{"value":"v1-style"}})");
    CHECK(load_error(bao).ends_with("(the mount looks like KV version 1, which is not supported)"));
    bao.reply = answer(200, "not json");
    CHECK(load_error(bao).ends_with("OpenBao's answer for secret/data/app/linear is not a JSON "
                                    "object"));
}

TEST_CASE("a value from OpenBao with a line break is refused like any other") {
    Recorder bao;
    bao.reply = answer(200, kv2(R"({"value":"abc\r\nX-Injected: yes"})"));
    CHECK(load_error(bao).starts_with(
        "secret LINEAR (ref:openbao/app/linear): the value contains a line break"));
}

TEST_CASE("transport failures name the server and what failed") {
    Recorder bao;
    using Failure = HttpGetReply::Failure;
    auto failing = [](Failure failure, std::string detail) {
        HttpGetReply reply;
        reply.failure = failure;
        reply.detail = std::move(detail);
        return reply;
    };
    bao.reply = failing(Failure::Tls, "certificate verify failed");
    CHECK(load_error(bao).find("TLS with OpenBao at bao.example:8200 failed: certificate verify "
                               "failed") != std::string::npos);
    bao.reply = failing(Failure::Connect, "Connection refused");
    CHECK(load_error(bao).ends_with("cannot connect to OpenBao at bao.example:8200: Connection "
                                    "refused"));
    bao.reply = failing(Failure::Timeout, "no answer within 10 s");
    CHECK(load_error(bao).ends_with("OpenBao at bao.example:8200 gave no answer: no answer within "
                                    "10 s"));
}

TEST_CASE("OpenBao addresses: https anywhere, plain http only to loopback") {
    using osf::secrets::parse_openbao_address;
    auto ok = parse_openbao_address("https://Bao.Example");
    REQUIRE(ok.address);
    CHECK(ok.address->host == "bao.example");
    CHECK(ok.address->port == "443");
    CHECK(ok.address->tls);
    CHECK(parse_openbao_address("http://127.0.0.1:8200").address);
    CHECK(parse_openbao_address("http://localhost:8200").address);
    CHECK(parse_openbao_address("http://[::1]:8200").address);
    CHECK(parse_openbao_address("http://bao.example:8200").error.find("only to a loopback") !=
          std::string::npos);
    CHECK(parse_openbao_address("http://10.0.0.1:8200").error.find("only to a loopback") !=
          std::string::npos);
    const auto userinfo = parse_openbao_address("https://user:hunter2@bao.example");
    CHECK(userinfo.error.find("user information") != std::string::npos);
    CHECK(userinfo.error.find("hunter2") == std::string::npos);
    CHECK_FALSE(parse_openbao_address("bao.example:8200").address);
    CHECK_FALSE(parse_openbao_address("https://bao.example:99999").address);
    CHECK_FALSE(parse_openbao_address("https://").address);
    CHECK_FALSE(parse_openbao_address("https://bao.example/?x=1").address);
}

TEST_CASE("OpenBao secret paths and mounts must be plain relative paths") {
    using osf::secrets::openbao_path_problem;
    CHECK_FALSE(openbao_path_problem("app/linear").has_value());
    CHECK(openbao_path_problem("").has_value());
    CHECK(openbao_path_problem("/app").has_value());
    CHECK(openbao_path_problem("app/").has_value());
    CHECK(openbao_path_problem("app//x").has_value());
    CHECK(openbao_path_problem("app/../sys/seal").has_value());
    Recorder bao;
    CHECK(load_error(bao, bao_env(), "../sys") ==
          "secret LINEAR (ref:openbao/../sys): the OpenBao secret path is not usable: it contains "
          "a '.' or '..' segment");
    CHECK(bao.requests.empty());
}
