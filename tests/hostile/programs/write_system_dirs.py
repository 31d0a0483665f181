"""Tries to create, overwrite and delete files in /, /etc, /usr, /lib, the interpreter and the runner."""

import os
import sys

TARGETS = [
    "/spade_pwned",
    "/etc/spade_pwned",
    "/etc/passwd",
    "/usr/spade_pwned",
    "/usr/lib/x86_64-linux-gnu/spade_pwned",
    "/lib/spade_pwned",
    os.path.join(os.path.dirname(os.__file__), "spade_pwned.py"),
    os.path.join(os.path.dirname(os.__file__), "os.py"),
    sys.argv[0],
    "/dev/spade_pwned",
]


def attempt(action, *args):
    try:
        action(*args)
        return "ok"
    except OSError as exc:
        return "%s(%s)" % (type(exc).__name__, exc.errno)


def create(path):
    with open(path, "a") as handle:
        handle.write("pwned\n")


class VandalEnv:
    def reset(self, seed=None):
        return "ready", {}

    def step(self, action):
        report = {}
        for path in TARGETS:
            report["write " + path] = attempt(create, path)
        report["unlink " + sys.argv[0]] = attempt(os.unlink, sys.argv[0])
        report["mkdir /usr/x"] = attempt(os.mkdir, "/usr/x")
        return "vandalised", 0.0, False, False, {"report": report, "targets": TARGETS}
