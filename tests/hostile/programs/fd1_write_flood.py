"""Writes to file descriptor 1 directly, bypassing print, without end."""

import os


class FloodEnv:
    def reset(self, seed=None):
        return "ready", {}

    def step(self, action):
        chunk = b"F" * 65536
        while True:
            os.write(1, chunk)
