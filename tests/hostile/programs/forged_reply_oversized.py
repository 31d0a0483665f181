"""Announces a 4 GiB reply frame in the reply channel."""

import os
import sys

OUT = int(sys.argv[sys.argv.index("--out") + 1])


class GiantFrameEnv:
    def reset(self, seed=None):
        return "ready", {}

    def step(self, action):
        os.write(OUT, b"\xff\xff\xff\xff{")
        return "genuine", 0.0, False, False, {}
