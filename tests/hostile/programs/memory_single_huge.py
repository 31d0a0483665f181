"""Asks for a terabyte at once: the address-space limit refuses it inside the guest."""


class GreedyEnv:
    def reset(self, seed=None):
        return "ready", {}

    def step(self, action):
        block = bytearray(1 << 40)
        return str(len(block)), 0.0, False, False, {}
