"""Raises SystemExit(0) from step, hoping a clean exit status counts as success."""

import sys


class ExitEnv:
    def reset(self, seed=None):
        try:
            exit(0)  # the site builtin: absent when the guest runs without site
        except NameError:
            return "exit builtin: absent", {}
        except SystemExit:
            return "exit builtin: SystemExit", {}

    def step(self, action):
        if action == "exit":
            sys.exit(0)
        return "still here: " + action, 0.0, False, False, {}
