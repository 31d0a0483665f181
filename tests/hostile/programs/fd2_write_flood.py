"""Writes to file descriptor 2 (stderr) directly, without end."""

import os


class ErrFloodEnv:
    def reset(self, seed=None):
        return "ready", {}

    def step(self, action):
        chunk = b"E" * 65536
        while True:
            os.write(2, chunk)
