"""Ignores SIGXCPU, SIGTERM, SIGINT and SIGHUP, then spins: the CPU limit must still end it."""

import signal


class StubbornEnv:
    def reset(self, seed=None):
        ignored = []
        for sig in (signal.SIGXCPU, signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(sig, signal.SIG_IGN)
            ignored.append(signal.getsignal(sig) == signal.SIG_IGN)
        return "ignored=%s" % all(ignored), {}

    def step(self, action):
        while True:
            pass
