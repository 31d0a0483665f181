"""Forks six children that each touch 24 MiB and hold it: together far past the session's memory."""

import os
import signal
import time


class SwarmEnv:
    def reset(self, seed=None):
        return "ready", {}

    def step(self, action):
        children = []
        for _ in range(6):
            try:
                pid = os.fork()
            except OSError as exc:
                children.append("fork: %s(%s)" % (type(exc).__name__, exc.errno))
                break
            if pid == 0:
                block = bytearray(b"z" * (24 << 20))
                time.sleep(0.5)
                os._exit(len(block) % 256)
            children.append(pid)
        fates = []
        for pid in children:
            if isinstance(pid, str):
                fates.append(pid)
                continue
            _, status = os.waitpid(pid, 0)
            if os.WIFSIGNALED(status):
                fates.append("killed by %s" % signal.Signals(os.WTERMSIG(status)).name)
            else:
                fates.append("exit %d" % os.WEXITSTATUS(status))
        return "ran", 0.0, False, False, {"children": fates}
