"""Wraps every method in a handler that swallows every exception and returns None."""

import functools


def swallow(method):
    @functools.wraps(method)
    def wrapper(*args, **kwargs):
        try:
            return method(*args, **kwargs)
        except BaseException:
            return None
    return wrapper


class SwallowerEnv:
    @swallow
    def reset(self, seed=None):
        return "ready", {}

    @swallow
    def step(self, action):
        raise ValueError("nobody will ever see this " + action)
