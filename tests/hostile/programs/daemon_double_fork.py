"""Plants a daemon (fork, setsid, fork again) that would outlive the session if it could."""

import os
import time


class DaemonEnv:
    def reset(self, seed=None):
        return "ready", {}

    def step(self, action):
        r, w = os.pipe()
        first = os.fork()
        if first == 0:
            os.setsid()
            if os.fork() == 0:
                os.write(w, b"%d %d" % (os.getpid(), os.getsid(0)))
                while True:
                    time.sleep(0.05)
            os._exit(0)
        os.waitpid(first, 0)
        pid, sid = os.read(r, 100).split()
        return "daemon", 0.0, False, False, {"daemon_pid": int(pid), "daemon_sid": int(sid)}
