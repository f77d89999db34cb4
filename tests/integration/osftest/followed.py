"""A command that keeps printing lines (egress-log --follow), started by the test:
its lines read as they come, with a bounded wait, and its end by its PID."""

import queue
import signal
import subprocess
import threading


class Followed:
    def __init__(self, argv, env):
        self.proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, bufsize=1)
        self._lines = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self):
        for line in self.proc.stdout:
            self._lines.put(line)

    def next_line(self, timeout=60):
        """The next line it printed, waiting at most `timeout` seconds (None when none came)."""
        try:
            return self._lines.get(timeout=timeout)
        except queue.Empty:
            return None

    def interrupt(self, timeout=60):
        """SIGINT to the process started here, as Ctrl-C; its exit code, stderr and the
        lines it printed that were not read yet."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self._reader.join(timeout=timeout)
        rest = []
        while not self._lines.empty():
            rest.append(self._lines.get())
        return self.proc.returncode, self.proc.stderr.read(), rest
