"""Plants symlinks and hardlinks towards host files and follows them."""

import os

CANARY = "__CANARY__"


def attempt(action, *args):
    try:
        result = action(*args)
        return "ok:%r" % (result,)
    except Exception as exc:
        return "%s(%s)" % (type(exc).__name__, getattr(exc, "errno", None))


def read(path):
    with open(path, "rb") as handle:
        return handle.read(64)


def write(path):
    with open(path, "a") as handle:
        return handle.write("pwned by a link\n")


class LinkEnv:
    def reset(self, seed=None):
        return "ready", {}

    def step(self, action):
        report = {}
        for name, target in (("canary", CANARY), ("passwd", "/etc/passwd"), ("root", "/"), ("proc", "/proc/1/root")):
            link = "/tmp/link-" + name
            report["symlink " + name] = attempt(os.symlink, target, link)
            report["read via " + name] = attempt(read, link)
            report["write via " + name] = attempt(write, link)
        report["hardlink libc"] = attempt(os.link, "/usr/lib/x86_64-linux-gnu/libc.so.6", "/tmp/libc-hard")
        report["hardlink runner"] = attempt(os.link, "/spade/spade_guest.py", "/tmp/runner-hard")
        report["hardlink canary"] = attempt(os.link, CANARY, "/tmp/canary-hard")
        return "planted", 0.0, False, False, {"report": report}
