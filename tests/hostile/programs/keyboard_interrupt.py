"""Raises KeyboardInterrupt from step, as if someone pressed Ctrl-C."""


class InterruptEnv:
    def reset(self, seed=None):
        return "ready", {}

    def step(self, action):
        if action == "interrupt":
            raise KeyboardInterrupt("ctrl-c from the program")
        return "still here: " + action, 0.0, False, False, {}
