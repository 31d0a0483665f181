"""Reads stdin (it must be empty, not the host's), then blocks reading its own request channel."""

import os
import sys


def arg(flag):
    return int(sys.argv[sys.argv.index(flag) + 1])


class BlockEnv:
    def reset(self, seed=None):
        # stdin is /dev/null in the jail and an empty StringIO in Python: both end at once.
        return repr((os.read(0, 100), sys.stdin.read())), {}

    def step(self, action):
        os.read(arg("--in"), 1)  # the host sends nothing until this call replies: a deadlock
        return "unreachable", 0.0, False, False, {}
