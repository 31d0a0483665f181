"""Closes the channel its replies travel on, in the middle of a step."""

import os
import sys

OUT = int(sys.argv[sys.argv.index("--out") + 1])


class MuteEnv:
    def reset(self, seed=None):
        return "ready", {}

    def step(self, action):
        os.close(OUT)
        return "nobody hears this", 0.0, False, False, {}
