"""Climbs out of its folder with '..' and absolute tricks towards a host file (the canary)."""

import os

CANARY = "__CANARY__"
PATHS = [
    "../../../../../../etc/passwd",
    "/tmp/../../../../etc/shadow",
    "/tmp/" + "../" * 30 + CANARY.lstrip("/"),
    "../" * 30 + CANARY.lstrip("/"),
    CANARY,
    "//" + CANARY,
    "/spade/../../../" + CANARY.lstrip("/"),
    "/proc/self/cwd/../../" + CANARY.lstrip("/"),
]


def attempt(action, *args):
    try:
        return "ok:%r" % (action(*args),)
    except Exception as exc:
        return "%s(%s)" % (type(exc).__name__, getattr(exc, "errno", None))


def read(path):
    with open(path) as handle:
        return handle.read(64)


def write(path):
    with open(path, "a") as handle:
        return handle.write("pwned via ..\n")


class ClimberEnv:
    def reset(self, seed=None):
        return "cwd=" + os.getcwd(), {}

    def step(self, action):
        report = {}
        for path in PATHS:
            report["read " + path] = attempt(read, path)
            report["write " + path] = attempt(write, path)
        report["listdir canary dir"] = attempt(os.listdir, os.path.dirname(CANARY))
        top = attempt(lambda: sorted(os.listdir("../../../../..")))
        return "climbed", 0.0, False, False, {"report": report, "top": top}
