"""Rewires builtins (isinstance, float) and math.isfinite so that the guest's own checks pass
anything; the host must still refuse what arrives."""

import builtins
import math

_real_isinstance = builtins.isinstance


def lying_isinstance(obj, kind):
    if type(obj) is int and kind is str:  # the observation 12345 "is" a str
        return True
    if type(obj) is list and kind in ((int, float), dict):  # a list "is" a number and a dict
        return True
    if type(obj) is str and kind is bool:  # "yes" "is" a bool
        return True
    return _real_isinstance(obj, kind)


class TamperEnv:
    def reset(self, seed=None):
        builtins.isinstance = lying_isinstance
        builtins.float = lambda value=0.0: value
        math.isfinite = lambda value: True
        return "tampered", {}

    def step(self, action):
        return 12345, ["not", "a", "number"], "yes", "no", ["not", "a", "dict"]
