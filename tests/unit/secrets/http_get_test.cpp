// The real OpenBao client (http_get over TLS) against tests/openbao/server.py,
// a KV v2 test server run on 127.0.0.1 for each test case.
#include "secrets/http_get.hpp"
#include "secrets/secret_loader.hpp"
#include "test_support.hpp"

#include <catch2/catch.hpp>
#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

using osf::SecretRef;
using secrets_test::fake_env;
using secrets_test::ref;
using secrets_test::spec_with;
using secrets_test::TempDir;

namespace {

const std::string token = "bao-token-6f2e";
const std::string value = "real-value-from-openbao-91c4";

// Runs server.py until destroyed; `port` once it listens.
class TestOpenBao {
public:
    TestOpenBao(const TempDir& dir, std::vector<std::string> extra_args) {
        dir.write("store.json", R"({"tokens": {")" + token +
                                    R"(": ["secret/data/app/*"]}, "mounts": {"secret": {)"
                                    R"("app/linear": {"value": ")" +
                                    value + R"("}, "app/nofield": {"user": "u"}}}})");
        std::vector<std::string> args{"/usr/bin/python3",
                                      std::string(OSF_SOURCE_DIR) + "/tests/openbao/server.py",
                                      "--secrets", dir.path() + "/store.json"};
        args.insert(args.end(), extra_args.begin(), extra_args.end());
        std::vector<char*> argv;
        for (auto& arg : args)
            argv.push_back(arg.data());
        argv.push_back(nullptr);

        int out[2];
        REQUIRE(::pipe(out) == 0);
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
        posix_spawn_file_actions_addclose(&actions, out[0]);
        const std::string log = dir.path() + "/openbao.stderr";
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, log.c_str(),
                                         O_WRONLY | O_CREAT | O_TRUNC, 0600);
        const int spawned = posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ);
        posix_spawn_file_actions_destroy(&actions);
        ::close(out[1]);
        REQUIRE(spawned == 0);

        // The port is the first line; generous bound for a loaded machine.
        std::string line;
        pollfd wait{out[0], POLLIN, 0};
        while (line.find('\n') == std::string::npos && ::poll(&wait, 1, 30'000) > 0) {
            char buffer[64];
            const ssize_t got = ::read(out[0], buffer, sizeof buffer);
            if (got <= 0) break;
            line.append(buffer, static_cast<std::size_t>(got));
        }
        ::close(out[0]);
        if (line.find('\n') == std::string::npos) {
            stop(); // the destructor does not run when the constructor fails
            FAIL("tests/openbao/server.py did not start; see " + log);
        }
        port = line.substr(0, line.find('\n'));
    }
    ~TestOpenBao() { stop(); }

    void stop() {
        if (pid_ <= 0) return;
        ::kill(pid_, SIGTERM);
        int status = 0;
        ::waitpid(pid_, &status, 0);
        pid_ = -1;
    }

    std::string port;

private:
    pid_t pid_ = -1;
};

osf::secrets::SecretStore::Loaded load_from(const std::string& addr, const std::string& ca,
                                            const std::string& path = "app/linear") {
    auto env = fake_env({{"OSF_OPENBAO_ADDR", addr}, {"OSF_OPENBAO_TOKEN", token}});
    env.extra_ca_bundle = ca;
    return osf::secrets::load_secrets(spec_with({{"LINEAR", ref(SecretRef::Kind::OpenBao, path)}}),
                                      env, osf::secrets::http_get);
}

} // namespace

TEST_CASE("the value is read over verified TLS, by name and by IP address", "[openbao]") {
    TempDir dir;
    TestOpenBao bao(dir, {"--self-signed", dir.path() + "/tls"});
    const std::string ca = dir.path() + "/tls/ca.crt";
    for (const std::string host : {"127.0.0.1", "localhost"}) {
        const auto loaded = load_from("https://" + host + ":" + bao.port, ca);
        REQUIRE(loaded.error.empty());
        CHECK(loaded.store.secrets()[0].value == value);
    }
}

TEST_CASE("403, 404 and a missing field from the real server", "[openbao]") {
    TempDir dir;
    TestOpenBao bao(dir, {"--self-signed", dir.path() + "/tls"});
    const std::string addr = "https://127.0.0.1:" + bao.port;
    const std::string ca = dir.path() + "/tls/ca.crt";
    CHECK(load_from(addr, ca, "ops/db").error.find("(403 permission denied)") != std::string::npos);
    CHECK(load_from(addr, ca, "app/none")
              .error.find("OpenBao has no secret "
                          "secret/data/app/none (404)") != std::string::npos);
    CHECK(load_from(addr, ca, "app/nofield")
              .error.find("has no field \"value\" (its fields: "
                          "user)") != std::string::npos);
}

TEST_CASE("an untrusted or misnamed certificate fails TLS; the token is never sent", "[openbao]") {
    TempDir dir;
    TestOpenBao bao(dir,
                    {"--self-signed", dir.path() + "/tls", "--self-signed-names", "localhost"});
    const auto untrusted = load_from("https://localhost:" + bao.port, "");
    CHECK(untrusted.error.find("TLS with OpenBao at localhost:" + bao.port + " failed: ") !=
          std::string::npos);
    CHECK(untrusted.error.find("unable to get local issuer certificate") != std::string::npos);

    // The certificate names localhost only, not the IP address.
    const auto misnamed = load_from("https://127.0.0.1:" + bao.port, dir.path() + "/tls/ca.crt");
    CHECK(misnamed.error.find("IP address mismatch") != std::string::npos);

    std::ifstream log(dir.path() + "/openbao.stderr");
    const std::string seen((std::istreambuf_iterator<char>(log)), {});
    CHECK(seen.find("GET") == std::string::npos); // no request got through
    CHECK(seen.find(token) == std::string::npos);
}

TEST_CASE("plain http works to loopback", "[openbao]") {
    TempDir dir;
    TestOpenBao bao(dir, {"--plain-http"});
    const auto loaded = load_from("http://127.0.0.1:" + bao.port, "");
    REQUIRE(loaded.error.empty());
    CHECK(loaded.store.secrets()[0].value == value);
}

TEST_CASE("a refused connection and a silent server are reported, bounded in time", "[openbao]") {
    // A listening socket that never answers: accepted by the kernel, never read.
    const int silent = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(silent, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
    REQUIRE(::listen(silent, 4) == 0);
    socklen_t length = sizeof address;
    ::getsockname(silent, reinterpret_cast<sockaddr*>(&address), &length);
    const std::string silent_port = std::to_string(ntohs(address.sin_port));

    osf::secrets::HttpGetRequest request;
    request.host = "127.0.0.1";
    request.port = silent_port;
    request.target = "/v1/secret/data/x";
    request.timeout = std::chrono::milliseconds(500);
    const auto reply = osf::secrets::http_get(request);
    CHECK(reply.failure == osf::secrets::HttpGetReply::Failure::Timeout);
    CHECK(reply.detail == "no answer within 500 ms");
    ::close(silent);

    // Nothing listens on the port any more.
    const auto refused = load_from("https://127.0.0.1:" + silent_port, "");
    CHECK(refused.error.find("cannot connect to OpenBao at 127.0.0.1:" + silent_port) !=
          std::string::npos);
}
