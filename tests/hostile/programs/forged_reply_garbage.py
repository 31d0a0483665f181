"""Writes a frame of garbage straight into the reply channel, then answers normally."""

import os
import sys

OUT = int(sys.argv[sys.argv.index("--out") + 1])


class GarbageEnv:
    def reset(self, seed=None):
        return "out fd %d" % OUT, {}

    def step(self, action):
        body = b"\x00\xffnot json at all{{{"
        os.write(OUT, len(body).to_bytes(4, "big") + body)
        return "genuine", 0.0, False, False, {}
