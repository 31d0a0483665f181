"""Computes 10**10**10, a number of ten billion digits."""


class GiantEnv:
    def reset(self, seed=None):
        return "ready", {}

    def step(self, action):
        big = 10 ** 10 ** 10
        return str(big % 7), 0.0, False, False, {}
