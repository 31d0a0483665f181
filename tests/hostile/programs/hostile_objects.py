"""Returns a str subclass with hostile __eq__/__hash__, whose __del__ kills the guest after the reply."""

import os


class Liar(str):
    def __eq__(self, other):
        raise RuntimeError("__eq__ is a trap")

    def __ne__(self, other):
        raise RuntimeError("__ne__ is a trap")

    def __hash__(self):
        raise RuntimeError("__hash__ is a trap")


class Bomb(str):
    def __del__(self):
        os._exit(0)


class HostileEnv:
    def reset(self, seed=None):
        return Liar("liar"), {}

    def step(self, action):
        if action == "bomb":
            return Bomb("ticking"), 0.0, False, False, {}
        return Liar("liar:" + action), 0.0, False, False, {}
