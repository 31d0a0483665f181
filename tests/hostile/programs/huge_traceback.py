"""Raises, 400 frames deep, an exception whose message is 10 MB long."""


def dive(depth):
    if depth == 0:
        raise ValueError("boom " + "x" * (10 * 1000 * 1000))
    return dive(depth - 1)


class LoudEnv:
    def reset(self, seed=None):
        return "ready", {}

    def step(self, action):
        if action == "raise":
            dive(400)
        return "calm:" + action, 0.0, False, False, {}
