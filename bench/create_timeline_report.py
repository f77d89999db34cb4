#!/usr/bin/python3
"""Reads `perf script -F comm,pid,tid,time,event,trace` of bench/create_timeline.sh on
stdin; prints the timeline of the processes descended from the first exec of the binary
named as the argument (sandbox-local's path), and of its later execs: process starts and
ends, binds, listens, renames, cgroups joined, every blocking wait (sleep, poll, wait4,
fsync) and mount, with how long each lasted, in milliseconds since that first exec.
Consecutive waits of one thread are folded into one line (counts, time inside, span)."""
import re
import sys

LINE = re.compile(r"^\s*(\S.*?)\s+(\d+)/(\d+)\s+([\d.]+):\s+(\S+):\s*(.*)$")
WAITS = {"clock_nanosleep", "nanosleep", "poll", "ppoll", "epoll_wait", "wait4", "inotify_add_watch",
         "fsync", "fdatasync"}
# Calls folded with the waits around them: bwrap makes its mounts one by one.
FOLDED = WAITS | {"mount"}


def main():
    # The binary whose processes are followed (its execs, and what they fork).
    binary = sys.argv[1] if len(sys.argv) > 1 else "sandbox-local"
    is_ours = lambda trace: f"filename={binary} " in trace + " " if len(sys.argv) > 1 else binary in trace
    tracked, start, pending, rows, folded = set(), None, {}, [], {}
    for raw in sys.stdin:
        m = LINE.match(raw)
        if not m:
            continue
        comm, pid, tid, t, event, trace = m.groups()
        pid, tid, t = int(pid), int(tid), float(t) * 1000
        if start is None:
            if event == "sched:sched_process_exec" and is_ours(trace):
                start, tracked = t, {pid}
            else:
                continue
        if event == "sched:sched_process_exec" and is_ours(trace):
            tracked.add(pid)  # the exec that follows create is a process of its own
        if event == "sched:sched_process_fork":
            child = int(re.search(r"child_pid=(\d+)", trace).group(1))
            if pid in tracked or tid in tracked:
                tracked.add(child)
                rows.append((t, tid, comm, f"fork -> {child}"))
            continue
        if pid not in tracked and tid not in tracked:
            continue
        name = event.split(":")[1]
        if name != "sched_process_exec" and not name.startswith("sys_"):
            folded.pop(tid, None)
        if name == "sched_process_exec":
            folded.pop(tid, None)
            rows.append((t, tid, comm, "exec " + trace.split()[0].split("=")[1]))
        elif name == "sched_process_exit":
            rows.append((t, tid, comm, "exit"))
        elif name == "cgroup_attach_task":
            path = re.search(r"path=(\S+)", trace)
            rows.append((t, tid, comm, "joined cgroup " + (path.group(1) if path else trace)))
        elif name.startswith("sys_enter_"):
            if name[10:] not in FOLDED:
                folded.pop(tid, None)
            pending[(tid, name[10:])] = (t, trace)
        elif name.startswith("sys_exit_"):
            call = name[9:]
            began, args = pending.pop((tid, call), (None, ""))
            if began is None:
                continue
            if call in FOLDED:
                # Consecutive calls of one thread, nothing else of it between: one line
                # with each call's count, the time inside them and the span they cover.
                last = folded.get(tid)
                if last is None:
                    rows.append((began, tid, comm, "", {}, 0.0, began))
                    last = folded[tid] = len(rows) - 1
                r = rows[last]
                counts = dict(r[4])
                counts[call] = counts.get(call, 0) + 1
                inside = r[5] + (t - began)
                calls = ", ".join(f"{k} x{v}" for k, v in counts.items())
                rows[last] = (r[0], tid, comm, f"{calls}: {inside:.1f} ms in them, over {t - r[0]:.1f} ms",
                              counts, inside, r[6])
                continue
            if call in ("bind", "listen", "rename", "connect"):
                rows.append((began, tid, comm, f"{call} = {trace.strip()}"))
    for row in sorted(rows, key=lambda r: r[0]):
        print(f"{row[0] - start:8.1f} ms  {row[1]:>7} {row[2][:14]:<14} {row[3]}")


if __name__ == "__main__":
    main()
