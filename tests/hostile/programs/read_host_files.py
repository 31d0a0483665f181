"""Reads /proc, /dev, /etc and /root, and lists what the root of its world holds."""

import os

PATHS = [
    "/proc/self/environ",
    "/proc/1/environ",
    "/proc/1/cmdline",
    "/proc/self/mountinfo",
    "/proc/kcore",
    "/sys/kernel/notes",
    "/dev/mem",
    "/dev/kmsg",
    "/dev/sda",
    "/dev/urandom",
    "/dev/shm",
    "/etc/passwd",
    "/etc/shadow",
    "/etc/hostname",
    "/root/.bashrc",
    "/root/.ssh/id_rsa",
    "/var/log/syslog",
    "/home",
]


def attempt(action, *args):
    try:
        return "ok:%r" % (action(*args),)
    except Exception as exc:
        return "%s(%s)" % (type(exc).__name__, getattr(exc, "errno", None))


def read(path):
    if os.path.isdir(path):
        return sorted(os.listdir(path))
    with open(path, "rb") as handle:
        return handle.read(64)


class SnoopEnv:
    def reset(self, seed=None):
        return "ready", {}

    def step(self, action):
        report = {path: attempt(read, path) for path in PATHS}
        listing = {path: attempt(lambda p=path: sorted(os.listdir(p))) for path in ("/", "/dev", "/tmp")}
        return "snooped", 0.0, False, False, {"report": report, "listing": listing}
