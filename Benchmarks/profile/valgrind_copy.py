"""A copy of flowd-bench that valgrind 3.19 can run: no debug sections (it cannot read Swift 6's DWARF 5) and the
sigsuspend shim built beside it (libdispatch's sigsuspend writes into the read-only mask valgrind gives it)."""

import os
import shutil
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))


def prepare(bench, folder):
    """Builds the shim and the stripped copy of `bench` in `folder`; returns their paths (shim, bench)."""
    shim = os.path.join(folder, "sigsuspend-copy.so")
    subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", shim, os.path.join(HERE, "sigsuspend-copy.c")], check=True)
    copy = os.path.join(folder, "flowd-bench")
    shutil.copyfile(bench, copy)
    os.chmod(copy, 0o755)
    subprocess.run(["strip", "--strip-debug", copy], check=True)
    return shim, copy
