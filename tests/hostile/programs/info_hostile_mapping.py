"""Returns an info whose items() raises while the guest encodes the reply."""


class Booby(dict):
    def items(self):
        raise RuntimeError("items() is a trap")


class TrapEnv:
    def reset(self, seed=None):
        return "ready", {}

    def step(self, action):
        if action == "trap":
            return "obs", 0.0, False, False, Booby(a=1)
        return "fine:" + action, 0.0, False, False, {}
