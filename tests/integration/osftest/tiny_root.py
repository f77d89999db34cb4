"""A tiny root file system directory for sandbox-local's root-directory template:
the given programs with the libraries ldd names, nothing else."""
import os
import re
import shutil
import subprocess
import tempfile


def make_tiny_root(programs, prefix="osl-root-"):
    root = tempfile.mkdtemp(prefix=prefix, dir="/tmp")
    for program in programs:
        real = os.path.realpath(program)
        target = os.path.join(root, "bin", os.path.basename(program))
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copy2(real, target)
        for line in subprocess.run(["ldd", real], capture_output=True, text=True).stdout.splitlines():
            match = re.search(r"(/\S+) \(0x", line)
            if match:
                library = match.group(1)
                os.makedirs(os.path.join(root, os.path.dirname(library.lstrip("/"))), exist_ok=True)
                shutil.copy2(os.path.realpath(library), os.path.join(root, library.lstrip("/")))
    return root
