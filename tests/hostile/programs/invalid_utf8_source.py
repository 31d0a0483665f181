"""Source text that no UTF-8 file can hold: the test swaps INVALID_UTF8 below for a lone surrogate."""


class InvalidTextEnv:
    def reset(self, seed=None):
        return "INVALID_UTF8", {}

    def step(self, action):
        return "obs", 0.0, False, False, {}
