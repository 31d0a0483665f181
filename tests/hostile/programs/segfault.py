"""Dereferences a null pointer through ctypes."""

import ctypes


class SegfaultEnv:
    def reset(self, seed=None):
        return "ready", {}

    def step(self, action):
        ctypes.string_at(0)
        return "survived", 0.0, False, False, {}
