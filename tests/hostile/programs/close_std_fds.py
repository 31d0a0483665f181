"""Closes stdin, stdout and stderr, then keeps printing and writing to them."""

import os


def attempt(action):
    try:
        return "ok:%r" % (action(),)
    except Exception as exc:
        return "%s(%s)" % (type(exc).__name__, getattr(exc, "errno", None))


class CloserEnv:
    def reset(self, seed=None):
        return "ready", {}

    def step(self, action):
        if action == "close":
            closed = {fd: attempt(lambda fd=fd: os.close(fd)) for fd in (0, 1, 2)}
            print("printed after closing the std fds")
            writes = {fd: attempt(lambda fd=fd: os.write(fd, b"x")) for fd in (1, 2)}
            return "closed", 0.0, False, False, {"closed": closed, "writes": writes}
        print("still printing")
        return "alive:" + action, 0.0, False, False, {}
