"""Sleeps for eleven days: uses no CPU, so only the wall-clock watchdog can end it."""

import time


class SleepyEnv:
    def reset(self, seed=None):
        return "ready", {}

    def step(self, action):
        time.sleep(1e6)
        return "woke up", 0.0, False, False, {}
