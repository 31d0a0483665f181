"""Opens files until the descriptor limit refuses, keeps them all open, then asks for one more step."""

import os


class HoarderOfFdsEnv:
    def reset(self, seed=None):
        self.held = []
        return "ready", {}

    def step(self, action):
        if action == "exhaust":
            refusal = None
            while refusal is None:
                try:
                    self.held.append(os.open("/spade/spade_guest.py", os.O_RDONLY))
                except OSError as exc:
                    refusal = "%s(%s)" % (type(exc).__name__, exc.errno)
            return "holding", 0.0, False, False, {"held": len(self.held), "refusal": refusal}
        return "still holding %d" % len(self.held), 0.0, False, False, {}
