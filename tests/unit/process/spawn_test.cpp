// process::spawn gives a child exactly the descriptors it names: whatever the
// parent holds (inherited, or not close-on-exec) is closed; 0-2 are
// /dev/null unless named; a failing step is an error naming it.
#include "process/fd.hpp"
#include "process/spawn.hpp"
#include "process/wait.hpp"

#include <catch2/catch.hpp>
#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

using namespace osf::process;

namespace {

// What the child printed on the pipe given as its stdout.
std::string output_of(SpawnSpec spec) {
    Pipe out = make_pipe();
    spec.fds.push_back({1, out.write.get()});
    const pid_t pid = spawn(spec);
    out.write = Fd();
    std::string text;
    char buffer[4096];
    ssize_t got;
    while ((got = ::read(out.read.get(), buffer, sizeof(buffer))) > 0)
        text.append(buffer, static_cast<std::size_t>(got));
    CHECK(wait_exit(pid) == 0);
    return text;
}

} // namespace

TEST_CASE("spawn: only the named descriptors reach the child") {
    // A descriptor without close-on-exec, as an inherited one would be.
    Fd leaked(::open("/dev/null", O_RDONLY));
    REQUIRE(leaked.get() > 2);
    Fd named(::open("/etc/hostname", O_RDONLY | O_CLOEXEC));
    SpawnSpec spec;
    spec.argv = {"/bin/sh", "-c", "ls /proc/self/fd | sort -n | tr '\\n' ' '"};
    spec.fds = {{5, named.get()}};
    // 0-2 (stdin and stderr /dev/null), 3: ls's own directory, 5: the named one.
    CHECK(output_of(spec) == "0 1 2 3 5 ");
}

TEST_CASE("spawn: unnamed standard streams are /dev/null, named ones are what was given") {
    SpawnSpec spec;
    spec.argv = {"/bin/sh", "-c", "readlink /proc/self/fd/0; readlink /proc/self/fd/2"};
    CHECK(output_of(spec) == "/dev/null\n/dev/null\n");
}

TEST_CASE("spawn: descriptors given at each other's numbers land where asked") {
    Pipe a = make_pipe();
    Pipe b = make_pipe();
    SpawnSpec spec;
    spec.argv = {"/bin/sh", "-c", "echo to-a >&3; echo to-b >&4"};
    // Swap: whatever numbers the parent's ends have, the child's 3 is b and 4 is a.
    spec.fds = {{3, b.write.get()}, {4, a.write.get()}};
    const pid_t pid = spawn(spec);
    a.write = Fd();
    b.write = Fd();
    char buffer[64] = {};
    CHECK(::read(b.read.get(), buffer, sizeof(buffer)) == 5);
    CHECK(std::string(buffer) == "to-a\n");
    CHECK(wait_exit(pid) == 0);
}

TEST_CASE("spawn: a failing step is reported by name") {
    SpawnSpec missing;
    missing.argv = {"no-such-program-osf"};
    CHECK_THROWS_WITH(spawn(missing), "cannot run no-such-program-osf: not found");
    SpawnSpec bad_dir;
    bad_dir.argv = {"/bin/true"};
    bad_dir.cwd = "/no/such/directory";
    CHECK_THROWS_WITH(spawn(bad_dir),
                      "cannot start /bin/true: changing its directory: No such file or directory");
    SpawnSpec failing_hook;
    failing_hook.argv = {"/bin/true"};
    failing_hook.before_exec = [] { return EPERM; };
    CHECK_THROWS_WITH(spawn(failing_hook),
                      "cannot start /bin/true: setting it up: Operation not permitted");
}

TEST_CASE("spawn: session, limits and environment are the child's own") {
    SpawnSpec spec;
    spec.argv = {"/bin/sh", "-c",
                 "ulimit -n; echo \"$OSF_X\"; ps -o sid= -p $$ | tr -d ' '; echo $$"};
    spec.env = std::vector<std::string>{"OSF_X=given", "PATH=/usr/bin:/bin"};
    spec.limits = {{RLIMIT_NOFILE, 77, 77}};
    spec.new_session = true;
    const std::string text = output_of(spec);
    const auto first = text.find('\n');
    CHECK(text.substr(0, first) == "77");
    CHECK(text.substr(first + 1, text.find('\n', first + 1) - first - 1) == "given");
}

TEST_CASE("spawn_function: runs the body with only the named descriptors") {
    Pipe out = make_pipe();
    Fd leaked(::open("/dev/null", O_RDONLY));
    SpawnSpec spec;
    spec.fds = {{1, out.write.get()}};
    const int leaked_number = leaked.get();
    const pid_t pid = spawn_function(spec, [leaked_number] {
        const bool closed = ::fcntl(leaked_number, F_GETFD) < 0;
        const char* text = closed ? "closed" : "open";
        return ::write(1, text, std::char_traits<char>::length(text)) > 0 ? 0 : 1;
    });
    out.write = Fd();
    char buffer[16] = {};
    CHECK(::read(out.read.get(), buffer, sizeof(buffer)) == 6);
    CHECK(std::string(buffer) == "closed");
    CHECK(wait_exit(pid) == 0);
}

TEST_CASE("start_function: returns while its child is stopped before the body") {
    Pipe out = make_pipe();
    SpawnSpec spec;
    spec.fds = {{1, out.write.get()}};
    // Stopped between fork and the body, as a sandbox's process can stop an
    // agent's helper: spawn_function would wait here for good.
    spec.before_exec = [] { return ::kill(::getpid(), SIGSTOP) == 0 ? 0 : errno; };
    const pid_t pid = start_function(spec, [] { return ::write(1, "ran", 3) == 3 ? 0 : 1; });
    out.write = Fd();
    int status = 0;
    REQUIRE(::waitpid(pid, &status, WUNTRACED) == pid);
    CHECK(WIFSTOPPED(status));
    ::kill(pid, SIGCONT);
    char buffer[8] = {};
    CHECK(::read(out.read.get(), buffer, sizeof(buffer)) == 3);
    CHECK(std::string(buffer) == "ran");
    CHECK(wait_exit(pid) == 0);
}

TEST_CASE("start_function: a step that fails ends the child with 127") {
    SpawnSpec spec;
    spec.cwd = "/nonexistent-directory-of-this-test";
    const pid_t pid = start_function(spec, [] { return 0; });
    CHECK(wait_exit(pid) == 127);
}
