"""Finds the guest runner through the garbage collector and lifts its print and reply caps."""

import gc
import sys


class TamperRunnerEnv:
    def reset(self, seed=None):
        runners = [obj for obj in gc.get_objects() if type(obj).__name__ == "Runner"]
        for runner in runners:
            runner.max_reply_bytes = 1 << 40
            runner.print_cap = 1 << 40
        sys.stdout.cap = 1 << 40
        return "runners=%d" % len(runners), {}

    def step(self, action):
        print("P" * (4 << 20))
        return "printed 4 MiB", 0.0, False, False, {}
