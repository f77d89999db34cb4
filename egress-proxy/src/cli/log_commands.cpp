#include "cli/log_commands.hpp"

#include "cli/exit_codes.hpp"
#include "egress_log/log_chain.hpp"
#include "egress_log/log_summary.hpp"
#include "egress_log/log_verifier.hpp"
#include "egress_log/report_page.hpp"
#include "egress_log/request_lines.hpp"
#include "egress_log/spec_suggestion.hpp"
#include "osf/proxy_state.hpp"

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <signal.h>
#include <sstream>
#include <thread>

namespace osf::cli {

namespace {

std::optional<std::string> read_whole(const std::string& path) {
    if (path == "-") {
        std::ostringstream out;
        out << std::cin.rdbuf();
        return out.str();
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    // A regular file is read in one piece of its size, so that a large log is
    // not held twice while a string grows; anything else (a pipe) as a stream.
    std::string text;
    std::error_code ec;
    if (std::filesystem::is_regular_file(path, ec)) {
        text.resize(static_cast<std::size_t>(std::filesystem::file_size(path, ec)));
        in.read(text.data(), static_cast<std::streamsize>(text.size()));
        text.resize(static_cast<std::size_t>(in.gcount()));
        in.clear();
    }
    // The rest: all of a pipe, or lines written since the size was taken.
    text.append(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    return text;
}

// The file as written with `raw`, else its request lines only.
int print_file(const std::filesystem::path& path, bool raw) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        std::cerr << "egress-proxy: no egress log at " << path.string()
                  << " (is the proxy running with this --state-dir?)\n";
        return exit_failure;
    }
    if (raw) {
        std::cout << in.rdbuf();
    } else {
        egress_log::RequestLineFilter filter;
        std::string chunk(64 * 1024, '\0');
        while (in.read(chunk.data(), static_cast<std::streamsize>(chunk.size())) || in.gcount() > 0)
            std::cout << filter.feed(
                std::string_view(chunk.data(), static_cast<std::size_t>(in.gcount())));
        std::cout << filter.finish();
    }
    std::cout.flush();
    return exit_ok;
}

volatile std::sig_atomic_t stop_following = 0;

int follow_file(const std::filesystem::path& path, bool raw) {
    std::signal(SIGINT, [](int) { stop_following = 1; });
    std::signal(SIGTERM, [](int) { stop_following = 1; });
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        std::cerr << "egress-proxy: no egress log at " << path.string() << "\n";
        return exit_failure;
    }
    std::string line;
    while (!stop_following) {
        while (std::getline(in, line)) {
            if (in.eof()) break; // a line still being written: read it whole later
            if (raw || egress_log::is_request_line(line)) std::cout << line << '\n';
        }
        std::cout.flush();
        if (in.eof()) {
            in.clear();
            in.seekg(-static_cast<std::streamoff>(line.size()), std::ios::cur);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    return exit_ok;
}

// The page, or a one-line error on stderr.
bool write_whole(const std::string& path, const std::string& text) {
    if (path == "-") {
        std::cout << text;
        std::cout.flush();
        return static_cast<bool>(std::cout);
    }
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (out) return true;
    std::cerr << "egress-proxy: cannot write " << path << "\n";
    return false;
}

// log report's log: FILE, else --state-dir's egress.jsonl (or --state-dir
// itself when it names a file).
std::string report_source(const std::string& file, const std::string& state_dir) {
    if (!file.empty()) return file;
    std::error_code ec;
    if (std::filesystem::is_directory(state_dir, ec))
        return proxy_state::path_in(state_dir, proxy_state::egress_log);
    return state_dir;
}

// The key to trust: --pubkey FILE (PEM), or nothing. Exits 2 through nullopt+message.
struct TrustedKey {
    std::optional<std::string> key;
    std::string problem;
};

TrustedKey read_trusted_key(const std::string& path) {
    if (path.empty()) return {};
    const auto pem = read_whole(path);
    if (!pem) return {std::nullopt, "cannot read --pubkey " + path};
    auto key = egress_log::ed25519_key_from_pem(*pem);
    if (!key) return {std::nullopt, "--pubkey " + path + " is not an Ed25519 public key (PEM)"};
    return {std::move(key), {}};
}

// The log's last whole line within its first `size` bytes when it is a
// checkpoint (a checkpoint line is far shorter than the tail read).
std::optional<std::string> last_checkpoint_line(const std::filesystem::path& log_path,
                                                std::uintmax_t size) {
    constexpr std::uintmax_t tail = 8192;
    std::ifstream in(log_path, std::ios::binary);
    const std::uintmax_t from = size > tail ? size - tail : 0;
    in.seekg(static_cast<std::streamoff>(from));
    std::string text(static_cast<std::size_t>(size - from), '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(in.gcount()));
    if (text.empty() || text.back() != '\n') return std::nullopt;
    text.pop_back();
    const auto newline = text.rfind('\n');
    std::string line = newline == std::string::npos ? text : text.substr(newline + 1);
    if (newline == std::string::npos && from != 0) return std::nullopt;
    if (line.find("\"kind\":\"checkpoint\"") == std::string::npos) return std::nullopt;
    return line;
}

// Asks the running proxy (its pid from listen.json) to sign its log now, and
// waits until the checkpoint line is in the file. A log that already ends
// with a checkpoint has nothing unsigned, and the proxy then writes none: that
// checkpoint is the answer once the file has not grown for a moment.
int request_checkpoint(const std::filesystem::path& state_dir, int timeout_seconds) {
    const auto listen_text = read_whole((state_dir / proxy_state::listen).string());
    const auto log_path = state_dir / proxy_state::egress_log;
    const auto listen = listen_text ? proxy_state::parse_listen(*listen_text) : std::nullopt;
    if (!listen || listen->pid == 0) {
        std::cerr << "egress-proxy: no running proxy named in "
                  << (state_dir / proxy_state::listen).string() << "\n";
        return exit_failure;
    }
    std::error_code ec;
    const auto before = std::filesystem::file_size(log_path, ec);
    if (ec) {
        std::cerr << "egress-proxy: no egress log at " << log_path.string() << "\n";
        return exit_failure;
    }
    const auto pid = static_cast<pid_t>(listen->pid);
    if (pid <= 0) return exit_failure;
    if (::kill(pid, SIGUSR1) != 0) {
        std::cerr << "egress-proxy: the proxy (pid " << pid << ") is not running\n";
        return exit_failure;
    }
    const auto signed_already = last_checkpoint_line(log_path, before);
    const auto started = std::chrono::steady_clock::now();
    const auto deadline = started + std::chrono::seconds(timeout_seconds);
    while (std::chrono::steady_clock::now() < deadline) {
        std::ifstream in(log_path, std::ios::binary);
        in.seekg(static_cast<std::streamoff>(before));
        std::string line;
        while (std::getline(in, line))
            if (!in.eof() && line.find("\"kind\":\"checkpoint\"") != std::string::npos) {
                std::cout << line << '\n';
                return exit_ok;
            }
        if (signed_already && std::filesystem::file_size(log_path, ec) == before && !ec &&
            std::chrono::steady_clock::now() - started >= std::chrono::milliseconds(200)) {
            std::cout << *signed_already << '\n';
            return exit_ok;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    std::cerr << "egress-proxy: no checkpoint written within " << timeout_seconds << " s\n";
    return exit_failure;
}

} // namespace

LogCommands::LogCommands(CLI::App& app, std::string& state_dir) : state_dir_(state_dir) {
    log_ = app.add_subcommand("log", "Print the egress log (JSON lines), verify or summarise it");
    log_->add_option("--state-dir", state_dir_, "The proxy's state directory")
        ->capture_default_str();
    log_->add_flag("-f,--follow", follow_, "Keep printing lines as they are written");
    log_->add_flag("--raw", raw_,
                   "Print the file exactly as written, the chain's start and checkpoint lines "
                   "with the requests (what verify and summary read); without it, one JSON line "
                   "per request");
    log_->require_subcommand(0, 1);

    verify_ = log_->add_subcommand(
        "verify", "Check the log's hash chain and signed checkpoints: exit 0, or 1 naming the "
                  "first line that does not hold");
    verify_->add_option("file", file_, "The log (- for standard input)")->required();
    verify_->add_flag("--require-final", require_final_,
                      "Also fail (exit 1) unless the log ends with the proxy's final checkpoint "
                      "(a log cut at a line boundary is otherwise indistinguishable from a "
                      "proxy killed there)");
    verify_->add_option("--pubkey", pubkey_,
                        "The published key (log-key.pub, PEM); the last checkpoint must be "
                        "signed by it");

    summary_ = log_->add_subcommand(
        "summary", "Hosts, refusals, secrets, MCP tools, time range and the chain's verdict");
    summary_->add_option("file", file_, "The log (- for standard input)")->required();
    summary_->add_option("--pubkey", pubkey_, "The published key (log-key.pub, PEM)");
    summary_->add_flag("--json", json_, "One JSON object instead of text");

    report_ = log_->add_subcommand(
        "report", "One self-contained HTML page for a reviewer: the verdict, a timeline of "
                  "requests per host, the summary's tables linked to the lines they count");
    report_->add_option("file", file_,
                        "The log (- for standard input); without it, the state "
                        "directory's egress.jsonl");
    report_
        ->add_option("--state-dir", state_dir_,
                     "The proxy's state directory (its egress.jsonl is read), or a log file")
        ->capture_default_str();
    report_->add_option("--pubkey", pubkey_, "The published key (log-key.pub, PEM)");
    report_->add_option("-o,--output", output_, "The page to write (- for standard output)")
        ->required()
        ->type_name("FILE");

    suggest_ = log_->add_subcommand(
        "suggest", "Print the tightest spec egress (and MCP tools) that would have let through "
                   "what the log shows: hosts, rules by method and path, generalised where a "
                   "segment varies; a tcp entry for each raw TCP tunnel, and each SOCKS5 "
                   "request refused for want of one; for a person to review");
    suggest_->add_option("file", file_, "The log (- for standard input)")->required();

    checkpoint_ = log_->add_subcommand(
        "checkpoint", "Ask the running proxy to sign its log now; prints the checkpoint line");
    checkpoint_->add_option("--state-dir", state_dir_, "The proxy's state directory")
        ->capture_default_str();
    checkpoint_->add_option("--timeout", timeout_seconds_, "Seconds to wait for the checkpoint")
        ->capture_default_str()
        ->check(CLI::Range(1, 600));
}

std::optional<int> LogCommands::run() const {
    if (!log_->parsed()) return std::nullopt;
    const std::filesystem::path state_dir(state_dir_);
    if (checkpoint_->parsed()) return request_checkpoint(state_dir, timeout_seconds_);
    if (suggest_->parsed()) {
        const auto text = read_whole(file_);
        if (!text) {
            std::cerr << "egress-proxy: cannot read " << file_ << "\n";
            return exit_usage;
        }
        egress_log::SpecSuggestion suggestion;
        for (std::size_t start = 0; start < text->size();) {
            const auto end = std::min(text->find('\n', start), text->size());
            suggestion.add(std::string_view(*text).substr(start, end - start));
            start = end + 1;
        }
        std::cout << suggestion.spec().dump(2) << "\n";
        return exit_ok;
    }
    if (!verify_->parsed() && !summary_->parsed() && !report_->parsed())
        return follow_ ? follow_file(state_dir / proxy_state::egress_log, raw_)
                       : print_file(state_dir / proxy_state::egress_log, raw_);

    const auto trusted = read_trusted_key(pubkey_);
    if (!trusted.problem.empty()) {
        std::cerr << "egress-proxy: " << trusted.problem << "\n";
        return exit_usage;
    }
    const std::string file = report_->parsed() ? report_source(file_, state_dir_) : file_;
    const auto text = read_whole(file);
    if (!text) {
        std::cerr << "egress-proxy: cannot read " << file << "\n";
        return exit_usage;
    }
    const auto report = egress_log::verify_log(*text, trusted.key);
    const std::string name = file == "-" ? "(stdin)" : file;
    if (report_->parsed()) {
        if (!write_whole(output_, egress_log::render_report(*text, report, name)))
            return exit_usage;
        if (!report.ok) std::cerr << egress_log::describe(report, name);
        return report.ok ? exit_ok : exit_failure;
    }
    if (verify_->parsed()) {
        (report.ok ? std::cout : std::cerr) << egress_log::describe(report, name);
        if (!report.ok) return exit_failure;
        if (require_final_ && (!report.ends_final || report.torn_tail_bytes)) {
            std::cerr << name << ": the log does not end with the proxy's final checkpoint: "
                      << "lines after line " << report.lines
                      << " were removed, or the proxy is still running or was killed\n";
            return exit_failure;
        }
        return exit_ok;
    }
    const auto summary = egress_log::summarise_log(*text, report);
    if (json_)
        std::cout << egress_log::render_json(summary).dump(2) << "\n";
    else
        std::cout << egress_log::render_text(summary);
    return report.ok ? exit_ok : exit_failure;
}

} // namespace osf::cli
