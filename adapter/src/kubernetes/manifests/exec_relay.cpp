#include "kubernetes/manifests/exec_relay.hpp"

#include "sandbox/exec_stop.hpp"

#include <string_view>

namespace osf::kubernetes::manifests {

namespace {

// kubectl's argv stays in the process table for the whole exec, where
// `pgrep -f`/`pkill -f` in the command would find it. So this first stage
// only writes the relay script and the command into a private directory and
// runs the relay from there: the long-lived shell shows `sh <dir>/relay
// <dir>`, never the command. $1 the relay script, $2 the command quoted.
constexpr const char* kStartScript =
    R"(d=$(mktemp -d 2>/dev/null) && printf '%s\n' "$1" >"$d/relay" &&
  printf 'set -- %s\n' "$2" >"$d/command" && exec sh "$d/relay" "$d"
[ -z "$d" ] || rm -rf "$d"
eval "exec $2")";

// $1 the directory. The command runs in a foreground subshell (its stdin and
// signal dispositions as if run directly; the shell's own "Killed" notices go
// to the script's stderr, /dev/null). The relays and the watcher run in the
// background and hold nothing of kubectl's but the relays' output. Opening a
// FIFO to read blocks until a writer opens it, so the watcher opens it
// read-write first. The exit code is the command's status, never its output.
constexpr const char* kRelayScript = R"(d=$1
. "$d/command"
mkfifo "$d/out" "$d/err" 2>/dev/null && command -v cat >/dev/null 2>&1 || {
  rm -rf "$d"
  exec "$@"
}
exec 3>&2 2>/dev/null
cat "$d/out" 3>&- & out=$!
cat "$d/err" >&3 3>&- & err=$!
(exec "$@" >"$d/out" 2>"$d/err" 3>&-)
code=$?
held_by_others() {
  for f in /proc/[0-9]*/fd/*; do
    [ "$f" -ef "$1" ] || continue
    p=${f#/proc/}; p=${p%%/*}
    [ "$p" = "$out" ] || [ "$p" = "$err" ] || return 0
  done
  return 1
}
(
  sleep DRAIN
  held_by_others "$d/out" || held_by_others "$d/err" || exit 0
  for f in "$d/out" "$d/err"; do
    exec 5<>"$f" 6<"$f" 5>&-
    cat <&6 6<&- &
    exec 6<&-
  done
  kill "$out" "$err"
) </dev/null >/dev/null 2>&1 3>&- &
watch=$!
wait "$out" "$err"
kill "$watch" 2>/dev/null
rm -rf "$d"
exit "$code")";

std::string relay_script() {
    // Built by concatenation: GCC 12 at -O2 warns (-Wrestrict) on replace() at find()'s result.
    const std::string_view script = kRelayScript;
    const std::string_view placeholder = "DRAIN";
    const auto at = script.find(placeholder);
    return std::string(script.substr(0, at)) + std::to_string(kExecOutputDrain.count()) +
           std::string(script.substr(at + placeholder.size()));
}

} // namespace

std::string shell_quoted(const std::vector<std::string>& words) {
    std::string quoted;
    for (const auto& word : words) {
        if (!quoted.empty()) quoted += ' ';
        quoted += '\'';
        for (char c : word) {
            if (c == '\'')
                quoted += "'\\''";
            else
                quoted += c;
        }
        quoted += '\'';
    }
    return quoted;
}

std::vector<std::string> relayed_command(const std::string& marker,
                                         const std::vector<std::string>& command) {
    return {"sh",       "-c",           kStartScript,
            "osf-exec", relay_script(), shell_quoted(sandbox::marked_command(marker, command))};
}

} // namespace osf::kubernetes::manifests
