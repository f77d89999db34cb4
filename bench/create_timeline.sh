#!/bin/sh
# The timeline of `sandbox-local create` and the first `exec -- true`: each process
# start (fork, exec, exit), each sleep and poll, each bind/listen and each file
# renamed into place, from the kernel's tracepoints (perf record, system-wide, so
# nothing in the product is changed or slowed by a tracer attached to it).
#
#   sudo ./bench/create_timeline.sh [BUILD_DIR] > timeline.txt
#
# BUILD_DIR holds adapter/sandbox-local and egress-proxy/egress-proxy (default
# build/default). Times are milliseconds since create's exec. Only the processes
# of this create and exec are printed (their pids are followed from fork events).
set -eu
build=$(cd "${1:-build/default}" && pwd)
work=$(mktemp -d /tmp/osl-timeline-XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir "$work/state"
echo '{"template":"host","egress":["example.com"]}' > "$work/spec.json"
export OSF_SANDBOX_LOCAL_STATE_DIR="$work/state" OSF_EGRESS_PROXY_BIN="$build/egress-proxy/egress-proxy"
local_bin="$build/adapter/sandbox-local"
# One create and destroy first: page cache and the first-run files warm, as for a user's
# second sandbox.
id=$("$local_bin" create "$work/spec.json" 2>/dev/null); "$local_bin" destroy "$id" >/dev/null 2>&1
events="-e sched:sched_process_fork -e sched:sched_process_exec -e sched:sched_process_exit -e cgroup:cgroup_attach_task"
for call in clock_nanosleep nanosleep poll ppoll epoll_wait wait4 inotify_add_watch mount fsync fdatasync bind listen rename connect; do
    events="$events -e syscalls:sys_enter_$call -e syscalls:sys_exit_$call"
done
# shellcheck disable=SC2086
perf record -q -a -o "$work/perf.data" $events -- sh -c '
    id=$("$0" create "$1" 2>/dev/null) && "$0" exec "$id" -- true && echo "$id" > "$2"' \
    "$local_bin" "$work/spec.json" "$work/id" >/dev/null 2>&1
"$local_bin" destroy "$(cat "$work/id")" >/dev/null 2>&1
perf script -i "$work/perf.data" -F comm,pid,tid,time,event,trace 2>/dev/null |
    /usr/bin/python3 "$(dirname "$0")/create_timeline_report.py" "$local_bin"
