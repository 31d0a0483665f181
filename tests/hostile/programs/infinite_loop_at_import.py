"""Spins forever while the module is being loaded, before any class exists."""

n = 0
while True:
    n += 1


class NeverEnv:
    def reset(self, seed=None):
        return "unreachable", {}

    def step(self, action):
        return "unreachable", 0.0, True, False, {}
