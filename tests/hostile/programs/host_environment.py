"""Looks for the host's environment variables and identity in every place a process can."""

import os
import sys


def call(name, *args):
    function = getattr(os, name, None)
    if function is None:
        return "absent"
    try:
        return function(*args)
    except Exception as exc:
        return "%s(%s)" % (type(exc).__name__, getattr(exc, "errno", None))


class EnvironEnv:
    def reset(self, seed=None):
        return "ready", {}

    def step(self, action):
        found = {
            "environ": dict(os.environ),
            "environb": {k.decode(): v.decode() for k, v in getattr(os, "environb", {}).items()},
            "getenv": os.getenv("SPADE_TEST_SECRET"),
            "argv": sys.argv,
            "executable": sys.executable,
            "ids": [call("getuid"), call("geteuid"), call("getgid"), call("getegid")],
            "groups": call("getgroups"),
            "hostname": call("uname")[1] if not isinstance(call("uname"), str) else call("uname"),
        }
        try:
            with open("/proc/self/environ", "rb") as handle:
                found["proc_environ"] = handle.read().decode("latin-1")
        except OSError as exc:
            found["proc_environ"] = "%s(%s)" % (type(exc).__name__, exc.errno)
        return repr(found), 0.0, False, False, found
