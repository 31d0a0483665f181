"""Swallows every MemoryError and keeps allocating in smaller pieces."""


class DenialEnv:
    def reset(self, seed=None):
        return "ready", {}

    def step(self, action):
        hoard = []
        size = 1 << 26
        while True:
            try:
                hoard.append(b"y" * size)
            except MemoryError:
                size = max(size // 2, 4096)
