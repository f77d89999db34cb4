#include "kubernetes/kubectl/process_kubectl_runner.hpp"

#include "process/fd.hpp"
#include "process/spawn.hpp"
#include "process/wait.hpp"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

namespace osf::kubernetes::kubectl {

namespace {

using process::Fd;
using process::make_pipe;

// How often a call with should_stop asks it.
constexpr int kStopPollMilliseconds = 200;

// A pending write of bytes into a child's pipe.
struct Writer {
    Fd fd;
    std::string data;
    std::size_t offset = 0;
};

// A pipe we read from: a stage's stderr, or the last stage's stdout.
struct Reader {
    Fd fd;
    std::size_t stage;
    bool is_stderr;
};

// One run of a pipeline: its stages started, their pipes pumped, their ends reaped.
class Pipeline {
public:
    Pipeline(const std::string& program, const std::vector<KubectlCall>& calls)
        : program_(program), calls_(calls), results_(calls.size()), pids_(calls.size(), -1) {
        for (const auto& call : calls)
            if (call.should_stop) stoppable_ = &call;
    }

    std::vector<KubectlResult> run() {
        Fd previous_stdout; // the read end of the previous stage's stdout
        for (std::size_t i = 0; i < calls_.size(); ++i)
            start(i, previous_stdout);
        pump();
        for (std::size_t i = 0; i < pids_.size(); ++i)
            if (pids_[i] > 0) results_[i].exit_code = reap(pids_[i]);
        return std::move(results_);
    }

private:
    // Stage i: stdin from the previous stage (or the input, or the terminal),
    // stdout to the next (or captured, or the terminal), stderr captured,
    // extra inputs on 3, 4, ...; nothing else of this process.
    void start(std::size_t i, Fd& previous_stdout) {
        const KubectlCall& call = calls_[i];
        const bool last = i + 1 == calls_.size();
        process::SpawnSpec spec;
        spec.argv.push_back(program_);
        spec.argv.insert(spec.argv.end(), call.args.begin(), call.args.end());
        // A call that does not read the terminal gets its own process group, so
        // Ctrl-C reaches only the adapter, which then cleans up in order.
        spec.new_process_group = !calls_.front().inherit_stdin;
        std::vector<Fd> child_ends; // closed here once the child holds them

        if (i > 0) {
            spec.fds.push_back({0, previous_stdout.get()});
            child_ends.push_back(std::move(previous_stdout));
        } else if (call.inherit_stdin) {
            spec.fds.push_back({0, 0});
        } else {
            feed(spec, child_ends, 0, call.input);
        }
        if (!last) {
            auto out = make_pipe();
            spec.fds.push_back({1, out.write.get()});
            child_ends.push_back(std::move(out.write));
            previous_stdout = std::move(out.read);
        } else if (call.inherit_stdout) {
            spec.fds.push_back({1, 1});
        } else {
            capture(spec, child_ends, 1, i);
        }
        capture(spec, child_ends, 2, i);
        for (std::size_t k = 0; k < call.extra_inputs.size(); ++k)
            feed(spec, child_ends, static_cast<int>(3 + k), call.extra_inputs[k]);

        try {
            pids_[i] = process::spawn(spec);
        } catch (const process::SpawnError& e) {
            results_[i].exit_code = 127;
            results_[i].err = "cannot run " + program_ + ": " +
                              (e.error() != 0 ? std::string(std::strerror(e.error())) : e.what());
        }
    }

    void feed(process::SpawnSpec& spec, std::vector<Fd>& child_ends, int number,
              const std::string& data) {
        auto pipe = make_pipe();
        spec.fds.push_back({number, pipe.read.get()});
        child_ends.push_back(std::move(pipe.read));
        writers_.push_back(Writer{std::move(pipe.write), data, 0});
    }

    void capture(process::SpawnSpec& spec, std::vector<Fd>& child_ends, int number,
                 std::size_t stage) {
        auto pipe = make_pipe();
        spec.fds.push_back({number, pipe.write.get()});
        child_ends.push_back(std::move(pipe.write));
        readers_.push_back(Reader{std::move(pipe.read), stage, number == 2});
    }

    bool asking() const { return stoppable_ != nullptr && !stopped_; }

    void stop_all() {
        stopped_ = true;
        for (const pid_t pid : pids_)
            if (pid > 0) ::kill(pid, SIGTERM);
    }

    // Feeds inputs and drains outputs together, so no pipe fills up and blocks.
    void pump() {
        for (auto& writer : writers_) {
            process::set_nonblocking(writer.fd.get(), true);
            if (writer.data.empty()) writer.fd = Fd();
        }
        for (;;) {
            if (asking() && stoppable_->should_stop()) stop_all();
            std::vector<pollfd> fds;
            std::vector<std::pair<bool, std::size_t>> owners; // (is_writer, index)
            for (std::size_t w = 0; w < writers_.size(); ++w)
                if (writers_[w].fd) {
                    fds.push_back(pollfd{writers_[w].fd.get(), POLLOUT, 0});
                    owners.emplace_back(true, w);
                }
            for (std::size_t r = 0; r < readers_.size(); ++r)
                if (readers_[r].fd) {
                    fds.push_back(pollfd{readers_[r].fd.get(), POLLIN, 0});
                    owners.emplace_back(false, r);
                }
            if (fds.empty()) break;
            // A stoppable call wakes up to ask again; others wait for their pipes.
            if (::poll(fds.data(), fds.size(), asking() ? kStopPollMilliseconds : -1) < 0) {
                if (errno == EINTR) continue;
                break;
            }
            for (std::size_t f = 0; f < fds.size(); ++f) {
                if (fds[f].revents == 0) continue;
                const auto [is_writer, index] = owners[f];
                if (is_writer)
                    write_some(writers_[index]);
                else
                    read_some(readers_[index]);
            }
        }
        for (auto& writer : writers_)
            writer.fd = Fd();
    }

    static void write_some(Writer& writer) {
        const ssize_t n = ::write(writer.fd.get(), writer.data.data() + writer.offset,
                                  writer.data.size() - writer.offset);
        if (n > 0) writer.offset += static_cast<std::size_t>(n);
        if ((n < 0 && errno != EAGAIN && errno != EINTR) || writer.offset == writer.data.size())
            writer.fd = Fd(); // done, or the child stopped reading
    }

    void read_some(Reader& reader) {
        const ssize_t n = ::read(reader.fd.get(), buffer_, sizeof buffer_);
        if (n > 0) {
            const std::string_view chunk(buffer_, static_cast<std::size_t>(n));
            const KubectlCall& call = calls_[reader.stage];
            if (reader.is_stderr && call.on_stderr)
                call.on_stderr(chunk);
            else if (reader.is_stderr)
                results_[reader.stage].err.append(chunk);
            else if (call.on_stdout)
                call.on_stdout(chunk);
            else
                results_[reader.stage].out.append(chunk);
        } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
            reader.fd = Fd();
        }
    }

    // Its exit code; a stage still running once its pipes closed is still
    // stopped when asked to.
    int reap(pid_t pid) {
        int status = 0;
        for (;;) {
            const pid_t done = ::waitpid(pid, &status, asking() ? WNOHANG : 0);
            if (done == pid || (done < 0 && errno != EINTR)) break;
            if (done != 0) continue;
            if (stoppable_->should_stop()) {
                stopped_ = true;
                ::kill(pid, SIGTERM);
            } else {
                ::poll(nullptr, 0, kStopPollMilliseconds);
            }
        }
        return process::exit_code_of(status);
    }

    const std::string& program_;
    const std::vector<KubectlCall>& calls_;
    std::vector<KubectlResult> results_;
    std::vector<pid_t> pids_;
    std::vector<Writer> writers_;
    std::vector<Reader> readers_;
    const KubectlCall* stoppable_ = nullptr;
    bool stopped_ = false;
    char buffer_[65536];
};

} // namespace

std::vector<KubectlResult>
ProcessKubectlRunner::run_pipeline(const std::vector<KubectlCall>& calls) {
    // A child that stops reading must not kill the adapter.
    static const bool sigpipe_ignored = (std::signal(SIGPIPE, SIG_IGN), true);
    (void)sigpipe_ignored;
    return Pipeline(program_, calls).run();
}

} // namespace osf::kubernetes::kubectl
