"""Calls abort(): SIGABRT from inside the guest."""

import os


class AbortEnv:
    def reset(self, seed=None):
        return "ready", {}

    def step(self, action):
        os.abort()
