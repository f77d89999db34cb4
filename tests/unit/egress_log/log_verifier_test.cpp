// The egress log as evidence: logs written by the real writer verify, each
// kind of tampering is caught at the right line, and the summary counts what
// the lines say.
#include "egress_log/log_chain.hpp"
#include "egress_log/log_summary.hpp"
#include "egress_log/log_verifier.hpp"
#include "log/egress_log_writer.hpp"
#include "log/log_record.hpp"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <unistd.h>

using namespace osf::log;
namespace el = osf::egress_log;
using nlohmann::json;

namespace {

struct TempLog {
    std::filesystem::path path;
    TempLog() {
        path = std::filesystem::temp_directory_path() /
               ("osf-log-evidence-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) +
                ".jsonl");
        std::filesystem::remove(path);
    }
    ~TempLog() { std::filesystem::remove(path); }
    std::string text() const {
        std::ifstream in(path, std::ios::binary);
        return std::string(std::istreambuf_iterator<char>(in), {});
    }
    static inline int counter = 0;
};

LogRecord request(int n, Outcome outcome = Outcome::allowed) {
    LogRecord r;
    r.time = std::chrono::system_clock::time_point(std::chrono::milliseconds(1796064372000 + n));
    r.connection = static_cast<std::uint64_t>(n);
    r.client = "127.0.0.1:5555";
    r.host = "api.example.com";
    r.port = 443;
    r.method = "GET";
    r.path = "/item/" + std::to_string(n);
    r.outcome = outcome;
    r.status = outcome == Outcome::allowed ? 200 : 403;
    if (outcome == Outcome::refused) r.refused_by = RefusalReason::host_not_allowed;
    r.bytes_down = 100;
    return r;
}

// A log of one run: start line, `requests` request lines with a checkpoint
// every `every`, and a final checkpoint when `stop`.
std::string write_log(const TempLog& file, int requests, std::uint64_t every, bool stop,
                      std::string* key_pem = nullptr) {
    EgressLogWriter writer(file.path.string(), false, every);
    for (int i = 1; i <= requests; ++i)
        REQUIRE(writer.write(to_json_line(request(i))));
    if (stop) writer.checkpoint(true);
    if (key_pem) *key_pem = writer.public_key_pem();
    return file.text();
}

std::vector<std::string> split(const std::string& text) {
    std::vector<std::string> lines;
    for (auto l : el::whole_lines(text))
        lines.emplace_back(l);
    return lines;
}

std::string join(const std::vector<std::string>& lines) {
    std::string out;
    for (const auto& l : lines)
        out += l + "\n";
    return out;
}

std::string raw_key(const std::string& pem) {
    auto key = el::ed25519_key_from_pem(pem);
    REQUIRE(key);
    return *key;
}

} // namespace

TEST_CASE("a log from the writer verifies, with a start line, chain and checkpoints",
          "[evidence]") {
    TempLog file;
    std::string pem;
    const auto text = write_log(file, 10, 4, true, &pem);
    const auto lines = split(text);
    // start, 4 requests, checkpoint, 4, checkpoint, 2, final checkpoint
    REQUIRE(lines.size() == 1 + 10 + 3);
    const auto start = json::parse(lines[0]);
    CHECK(start["kind"] == "start");
    CHECK(start["chain"] == el::to_hex(el::sha256(start["logId"].get<std::string>())));
    CHECK(el::base64_decode(start["publicKey"].get<std::string>()) == raw_key(pem));
    for (std::size_t i = 1; i < lines.size(); ++i)
        CHECK(json::parse(lines[i])["chain"] == el::to_hex(el::sha256(lines[i - 1] + "\n")));
    const auto checkpoint = json::parse(lines[5]);
    CHECK(checkpoint["kind"] == "checkpoint");
    CHECK(checkpoint["lines"] == 5);
    CHECK(checkpoint["logId"] == start["logId"]);
    CHECK(json::parse(lines.back())["final"] == true);

    const auto report = el::verify_log(text, raw_key(pem));
    INFO(report.problem);
    CHECK(report.ok);
    CHECK(report.lines == 14);
    CHECK(report.checkpoints == 3);
    CHECK(report.last_checkpoint == 14);
    CHECK(report.trusted_key);
    CHECK(report.ends_final);
    CHECK(el::describe(report, "x").find("x: verified: 14 lines") == 0);
}

TEST_CASE("each kind of tampering is caught at the right line", "[evidence]") {
    TempLog file;
    std::string pem;
    const auto lines = split(write_log(file, 10, 4, true, &pem));
    const auto key = raw_key(pem);

    auto edited = lines;
    edited[3].replace(edited[3].find("/item/3"), 7, "/item/X");
    auto report = el::verify_log(join(edited), key);
    CHECK_FALSE(report.ok);
    CHECK(report.bad_line == 5); // line 4 changed: line 5 no longer follows it
    CHECK(report.problem.find("line 4 was changed") != std::string::npos);

    auto deleted = lines;
    deleted.erase(deleted.begin() + 6); // line 7
    report = el::verify_log(join(deleted), key);
    CHECK(report.bad_line == 7);

    auto reordered = lines;
    std::swap(reordered[7], reordered[8]); // lines 8 and 9
    report = el::verify_log(join(reordered), key);
    CHECK(report.bad_line == 8);

    auto added = lines;
    added.insert(added.begin() + 2, lines[2]); // a copy of line 3 as line 4
    report = el::verify_log(join(added), key);
    CHECK(report.bad_line == 4);

    auto resigned = lines; // a checkpoint's count changed: its signature no longer holds
    resigned[5].replace(resigned[5].find("\"lines\":5"), 9, "\"lines\":4");
    report = el::verify_log(join(resigned), key);
    CHECK(report.bad_line == 5 + 1);
    CHECK(report.problem.find("counts 4 lines") != std::string::npos);

    auto bad_signature = lines;
    const auto at = bad_signature[10].find("\"signature\":\"") + 13;
    bad_signature[10][at] = bad_signature[10][at] == 'A' ? 'B' : 'A';
    report = el::verify_log(join(bad_signature), key);
    CHECK(report.bad_line == 11);
    CHECK(report.problem.find("signature does not verify") != std::string::npos);

    auto no_start = lines;
    no_start.erase(no_start.begin());
    CHECK(el::verify_log(join(no_start), key).bad_line == 1);

    auto appended = lines; // a line added after the final checkpoint, chained correctly
    auto extra = json::parse(lines[1]);
    extra["chain"] = el::to_hex(el::sha256(lines.back() + "\n"));
    appended.push_back(extra.dump());
    report = el::verify_log(join(appended), key);
    CHECK(report.bad_line == 15);
    CHECK(report.problem.find("after the proxy stopped") != std::string::npos);

    auto garbage = lines;
    garbage[2] = "not json";
    CHECK(el::verify_log(join(garbage), key).bad_line == 3);
}

TEST_CASE("a log rewritten with another key verifies only without the published key",
          "[evidence]") {
    TempLog real, forged;
    std::string real_pem;
    write_log(real, 3, 100, true, &real_pem);
    const auto forged_text = write_log(forged, 3, 100, true); // a new key: another "proxy"
    CHECK(el::verify_log(forged_text, std::nullopt).ok);
    const auto report = el::verify_log(forged_text, raw_key(real_pem));
    CHECK_FALSE(report.ok);
    CHECK(report.bad_line == 5);
    CHECK(report.problem.find("key other than the given one") != std::string::npos);
    CHECK_FALSE(el::verify_log("", std::nullopt).ok);
}

TEST_CASE("a log cut between checkpoints verifies up to its last whole line", "[evidence]") {
    TempLog file;
    std::string pem;
    const auto text = write_log(file, 6, 4, false, &pem); // no final checkpoint: "killed"
    auto report = el::verify_log(text, raw_key(pem));
    CHECK(report.ok);
    CHECK(report.lines == 8);
    CHECK(report.last_checkpoint == 6);
    CHECK_FALSE(report.ends_final);
    CHECK(el::describe(report, "f").find("unsigned tail: lines 7-8") != std::string::npos);

    // A write cut short mid-line: the piece is not verified, and said so.
    const auto torn = text + text.substr(0, 40);
    report = el::verify_log(torn, raw_key(pem));
    CHECK(report.ok);
    CHECK(report.torn_tail_bytes == 40);

    // The next run cuts the piece off and continues the chain: the whole file
    // verifies against the new run's key.
    { std::ofstream(file.path, std::ios::binary | std::ios::app) << text.substr(0, 40); }
    std::string second_pem;
    {
        EgressLogWriter writer(file.path.string(), false, 100);
        CHECK(writer.truncated_bytes() == 40);
        writer.write(to_json_line(request(7)));
        writer.checkpoint(true);
        second_pem = writer.public_key_pem();
    }
    report = el::verify_log(file.text(), raw_key(second_pem));
    INFO(report.problem);
    CHECK(report.ok);
    CHECK(report.runs == 2);
    CHECK(report.lines == 8 + 3);
    CHECK(report.ends_final);
    // Removing the first run is caught: the second start line names a line not there.
    const auto lines = split(file.text());
    const std::vector<std::string> second_run(lines.begin() + 8, lines.end());
    CHECK(el::verify_log(join(second_run), std::nullopt).bad_line == 1);
}

TEST_CASE("checkpoints only when lines are unsigned, except the final one", "[evidence]") {
    TempLog file;
    {
        EgressLogWriter writer(file.path.string(), false, 100);
        writer.checkpoint(); // the start line is unsigned: signed now
        writer.checkpoint(); // nothing new
        writer.write(to_json_line(request(1)));
        writer.checkpoint();
        writer.checkpoint(); // nothing new
        writer.checkpoint(true);
    }
    const auto lines = split(file.text());
    REQUIRE(lines.size() == 5);
    CHECK(json::parse(lines[1])["kind"] == "checkpoint");
    CHECK(json::parse(lines[1])["lines"] == 1);
    CHECK(json::parse(lines[3])["kind"] == "checkpoint");
    CHECK(json::parse(lines[4])["final"] == true);
    CHECK(el::verify_log(file.text(), std::nullopt).ok);
}

TEST_CASE("an idle proxy's log, only its start line, verifies after a checkpoint on request",
          "[evidence]") {
    TempLog file;
    std::string pem;
    {
        EgressLogWriter writer(file.path.string(), false, 100);
        writer.checkpoint();
        pem = writer.public_key_pem();
        const auto report = el::verify_log(file.text(), raw_key(pem));
        INFO(report.problem);
        CHECK(report.ok);
        CHECK(report.lines == 2);
        CHECK(report.last_checkpoint == 2);
    }
}

TEST_CASE("the summary counts hosts, refusals, secrets and MCP tools", "[evidence]") {
    const std::string text =
        R"({"time":"2026-11-29T18:46:13.004Z","host":"wiki.example.com","outcome":"refused","refusedBy":"mcp-tool","mcpServer":"wiki","tool":"delete_page","bytesUp":0,"bytesDown":112})"
        "\n"
        R"({"time":"2026-11-29T18:46:12.123Z","host":"registry.npmjs.org","outcome":"allowed","secrets":["NPM_TOKEN"],"bytesUp":10,"bytesDown":5821})"
        "\n"
        R"({"time":"2026-11-29T18:46:14.000Z","host":"registry.npmjs.org","outcome":"allowed","secrets":["NPM_TOKEN"],"bytesUp":5,"bytesDown":100})"
        "\n"
        R"({"time":"2026-11-29T18:46:15.000Z","host":"evil.example","outcome":"refused","refusedBy":"host-not-allowed","bytesUp":0,"bytesDown":0})"
        "\n"
        R"({"time":"2026-11-29T18:46:16.000Z","host":"wiki.example.com","outcome":"allowed","mcpServer":"wiki","tool":"search","bytesUp":58,"bytesDown":734,"toolsRemoved":2})"
        "\n"
        R"({"time":"2026-11-29T18:46:17.000Z","host":"api.linear.app","outcome":"error","error":"upstream-tls","bytesUp":0,"bytesDown":0})"
        "\n"
        R"({"time":"2026-11-29T18:46:18.000Z","kind":"checkpoint"})"
        "\n";
    const auto report = el::verify_log(text, std::nullopt);
    CHECK_FALSE(report.ok); // no start line, no chain
    const auto s = el::summarise_log(text, report);
    CHECK(s.requests == 6);
    CHECK(s.allowed == 3);
    CHECK(s.refused == 2);
    CHECK(s.errors == 1);
    CHECK(s.first_time == "2026-11-29T18:46:12.123Z");
    CHECK(s.last_time == "2026-11-29T18:46:17.000Z");
    CHECK(s.hosts.at("registry.npmjs.org").requests == 2);
    CHECK(s.hosts.at("registry.npmjs.org").bytes_down == 5921);
    CHECK(s.hosts.at("registry.npmjs.org").bytes_up == 15);
    CHECK(s.refusals.at("host-not-allowed").at("evil.example") == 1);
    CHECK(s.refusals.at("mcp-tool").at("wiki.example.com") == 1);
    CHECK(s.failures.at("upstream-tls").at("api.linear.app") == 1);
    CHECK(s.secrets.at("NPM_TOKEN").at("registry.npmjs.org") == 2);
    CHECK(s.mcp.at("wiki").called.at("search") == 1);
    CHECK(s.mcp.at("wiki").refused.at("delete_page") == 1);
    CHECK(s.mcp.at("wiki").tools_removed == 2);

    const auto text_out = el::render_text(s);
    CHECK(text_out.find("chain: NOT VERIFIED: line 1:") == 0);
    CHECK(text_out.find("delete_page REFUSED 1") != std::string::npos);
    const auto j = el::render_json(s);
    CHECK(j["verification"]["ok"] == false);
    CHECK(j["requests"]["total"] == 6);
    CHECK(j["secrets"][0] ==
          json({{"secret", "NPM_TOKEN"}, {"host", "registry.npmjs.org"}, {"count", 2}}));
}

TEST_CASE("base64 and keys are read strictly", "[evidence]") {
    CHECK(el::base64_decode("aGVsbG8=") == std::string("hello"));
    CHECK(el::base64_decode("aGVsbG8") == std::nullopt);
    CHECK(el::base64_decode("aGVs bG8=") == std::nullopt);
    CHECK(el::base64_decode("") == std::nullopt);
    CHECK(el::base64_encode(std::string(2, '\xff')) == "//8=");
    CHECK(el::ed25519_key_from_pem("not a key") == std::nullopt);
}

TEST_CASE("the contract's example log, signed by an independent implementation, verifies",
          "[evidence]") {
    const std::string dir = std::string(OSF_SOURCE_DIR) + "/contracts/examples/egress-log/";
    auto read = [](const std::string& path) {
        std::ifstream in(path, std::ios::binary);
        REQUIRE(in);
        return std::string(std::istreambuf_iterator<char>(in), {});
    };
    const auto report =
        el::verify_log(read(dir + "valid.jsonl"), raw_key(read(dir + "valid.key.pub")));
    INFO(report.problem);
    CHECK(report.ok);
    CHECK(report.checkpoints == 2);
    CHECK(report.ends_final);
}
