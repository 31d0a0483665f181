"""Exits with status 0 in the middle of a step, hoping that counts as success."""

import os


class QuitterEnv:
    def reset(self, seed=None):
        return "ready", {}

    def step(self, action):
        os._exit(0)
