"""Recurses without end, under the default recursion limit or after lifting it to a billion."""

import sys


def down(n):
    return down(n + 1) + 1


class RecursiveEnv:
    def reset(self, seed=None):
        return "limit=%d" % sys.getrecursionlimit(), {}

    def step(self, action):
        if action == "unbounded":
            sys.setrecursionlimit(10**9)
        if action in ("bounded", "unbounded"):
            return str(down(0)), 0.0, False, False, {}
        return "calm:" + action, 0.0, False, False, {}
