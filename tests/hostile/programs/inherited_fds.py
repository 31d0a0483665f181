"""Probes every file descriptor number for something the host might have leaked into the sandbox."""

import os
import stat
import sys

KINDS = {stat.S_IFSOCK: "socket", stat.S_IFIFO: "pipe", stat.S_IFREG: "file", stat.S_IFCHR: "char", stat.S_IFDIR: "dir"}


class FdScanEnv:
    def reset(self, seed=None):
        return "ready", {}

    def step(self, action):
        found = {}
        for fd in range(4096):
            try:
                mode = os.fstat(fd).st_mode
            except OSError:
                continue
            found[str(fd)] = KINDS.get(stat.S_IFMT(mode), "other")
        channel = [sys.argv[sys.argv.index(flag) + 1] for flag in ("--in", "--out")]
        return "scanned", 0.0, False, False, {"open": found, "channel": channel}
