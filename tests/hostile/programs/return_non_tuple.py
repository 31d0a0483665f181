"""Returns the wrong shapes: a list, a dict, None, a 4-tuple, depending on the action."""


class ShapelessEnv:
    def reset(self, seed=None):
        return "ready", {}

    def step(self, action):
        shapes = {
            "list": ["obs", 0.0, False, False, {}],
            "dict": {"observation": "obs"},
            "none": None,
            "short": ("obs", 0.0, False, False),
            "bad-flag": ("obs", 0.0, "no", False, {}),
            "bytes-obs": (b"obs", 0.0, False, False, {}),
        }
        return shapes.get(action, ("fine", 0.0, False, False, {}))
