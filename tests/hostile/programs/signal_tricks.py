"""Signals everything it can reach: every process (-1), its own init, its process group; alarms itself."""

import os
import signal


def attempt(action):
    try:
        return "ok:%r" % (action(),)
    except Exception as exc:
        return "%s(%s)" % (type(exc).__name__, getattr(exc, "errno", None))


class SignalEnv:
    def reset(self, seed=None):
        return "pid=%d" % os.getpid(), {}

    def step(self, action):
        report = {
            "kill -1 SIGKILL": attempt(lambda: os.kill(-1, signal.SIGKILL)),
            "kill -1 SIGTERM": attempt(lambda: os.kill(-1, signal.SIGTERM)),
            "kill self SIGKILL": attempt(lambda: os.kill(os.getpid(), signal.SIGKILL)),
            "kill self SIGTERM": attempt(lambda: os.kill(os.getpid(), signal.SIGTERM)),
            "kill self SIGSTOP": attempt(lambda: os.kill(os.getpid(), signal.SIGSTOP)),
            "killpg 0": attempt(lambda: os.killpg(0, signal.SIGKILL)),
            "kill pid 1": attempt(lambda: os.kill(1, signal.SIGKILL) if os.getpid() != 1 else "self"),
            "kill host-like pids": [attempt(lambda p=p: os.kill(p, 0)) for p in (2, 300, 4000, 32000)],
            "alarm": attempt(lambda: signal.alarm(1) or "set"),
            "setitimer": attempt(lambda: signal.setitimer(signal.ITIMER_REAL, 0.0)),
        }
        return "survived pid=%d" % os.getpid(), 0.0, False, False, {"report": report}
