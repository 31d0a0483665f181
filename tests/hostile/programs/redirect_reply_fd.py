"""Points its reply channel at /dev/null, so that its replies vanish."""

import os
import sys

OUT = int(sys.argv[sys.argv.index("--out") + 1])


class BlackHoleEnv:
    def reset(self, seed=None):
        return "ready", {}

    def step(self, action):
        null = os.open("/dev/null", os.O_WRONLY)
        os.dup2(null, OUT)
        return "into the void", 0.0, False, False, {}
