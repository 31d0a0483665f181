"""Closes the channel it reads requests from, mid-session."""

import os
import sys

IN = int(sys.argv[sys.argv.index("--in") + 1])


class DeafEnv:
    def reset(self, seed=None):
        return "ready", {}

    def step(self, action):
        os.close(IN)
        return "closed fd %d" % IN, 0.0, False, False, {}
