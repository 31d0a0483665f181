"""Returns an info that JSON cannot hold: a set, an object, bytes, a self-reference, depending on the action."""


class Opaque:
    pass


class UnserialisableEnv:
    def reset(self, seed=None):
        return "ready", {}

    def step(self, action):
        loop = {}
        loop["self"] = loop
        infos = {
            "set": {"s": {1, 2}},
            "object": {"o": Opaque()},
            "bytes": {"b": b"raw"},
            "cycle": loop,
            "nan": {"x": float("nan")},
            "deep": {"d": nest(100000)},
        }
        return "obs", 0.0, False, False, infos.get(action, {"fine": True})


def nest(depth):
    value = []
    for _ in range(depth):
        value = [value]
    return value
