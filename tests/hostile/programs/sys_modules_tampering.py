"""Empties sys.modules and poisons the json, os and traceback entries, then keeps answering."""

import sys


class Poison:
    def __getattr__(self, name):
        raise ImportError("poisoned module: " + name)


class ModulesEnv:
    def reset(self, seed=None):
        return "ready", {}

    def step(self, action):
        if action == "poison":
            kept = len(sys.modules)
            sys.modules.clear()
            for name in ("json", "os", "traceback", "linecache", "io", "math", "random"):
                sys.modules[name] = Poison()
            return "poisoned %d modules" % kept, 0.0, False, False, {}
        if action == "raise":
            raise LookupError("after the poisoning")
        return "still answering:" + action, 1.0, False, False, {"n": len(sys.modules)}
