"""Allocates and touches memory in 1 MiB pieces until something stops it."""


class HungryEnv:
    def reset(self, seed=None):
        return "ready", {}

    def step(self, action):
        hoard = []
        while True:
            hoard.append(bytearray(b"x" * (1 << 20)))
