"""Raises an exception whose __str__ and __repr__ raise, and whose class name is a lie."""


class Meta(type):
    @property
    def __name__(cls):
        raise RuntimeError("no name either")


class Unprintable(Exception, metaclass=Meta):
    def __str__(self):
        raise ValueError("str() is a trap")

    def __repr__(self):
        raise ValueError("repr() is a trap")


class RaiserEnv:
    def reset(self, seed=None):
        return "ready", {}

    def step(self, action):
        if action == "raise":
            raise Unprintable("hidden")
        return "fine:" + action, 0.0, False, False, {}
