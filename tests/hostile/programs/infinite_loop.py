"""Spins forever inside step: only an outside limit (CPU or wall clock) can end it."""


class SpinEnv:
    def reset(self, seed=None):
        return "ready", {}

    def step(self, action):
        n = 0
        while True:
            n += 1
