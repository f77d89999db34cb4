#include "sandbox/exec_stop.hpp"

namespace osf::sandbox {

namespace {

// $1 the marker, $2 the grace in seconds. The script's own processes never
// carry the marker (it is an argument here, not a variable), and zombies
// have no readable environment.
constexpr const char* kStopScript = R"(marked() {
  for p in /proc/[0-9]*; do
    if tr '\0' '\n' < "$p/environ" 2>/dev/null | grep -qx "OSF_EXEC_ID=$1"; then
      echo "${p#/proc/}"
    fi
  done
}
pids=$(marked "$1")
[ -n "$pids" ] || exit 0
kill -TERM $pids 2>/dev/null
i=0
while [ "$i" -lt "$2" ]; do
  sleep 1
  pids=$(marked "$1")
  [ -n "$pids" ] || exit 0
  i=$((i + 1))
done
kill -KILL $pids 2>/dev/null
exit 0)";

} // namespace

std::vector<std::string> marked_command(const std::string& marker,
                                        const std::vector<std::string>& command) {
    // A program the sandbox does not have is named as such (exit 127, a
    // shell's code), not by env's "No such file or directory".
    std::vector<std::string> argv = {
        "sh", "-c",
        "command -v -- \"$2\" >/dev/null 2>&1 || "
        "{ printf 'exec: %s: not found in the sandbox\\n' \"$2\" >&2; exit 127; }; "
        "exec env \"$@\"",
        "osf-exec", std::string(kExecMarkerVariable) + "=" + marker};
    argv.insert(argv.end(), command.begin(), command.end());
    return argv;
}

std::vector<std::string> stop_command(const std::string& marker, std::chrono::seconds grace) {
    return {"sh", "-c", kStopScript, "sh", marker, std::to_string(grace.count())};
}

} // namespace osf::sandbox
