"""Asks for POSIX shared memory (needs /dev/shm) and a memfd bigger than /tmp."""

import os
from multiprocessing import shared_memory


def attempt(action):
    try:
        return "ok:%r" % (action(),)
    except Exception as exc:
        return "%s(%s)" % (type(exc).__name__, getattr(exc, "errno", None))


def big_memfd():
    fd = os.memfd_create("spade")
    chunk = b"m" * (1 << 20)
    written = 0
    try:
        for _ in range(64):
            written += os.write(fd, chunk)
    except OSError as exc:
        return "wrote %d then %s(%s)" % (written, type(exc).__name__, exc.errno)
    return "wrote %d" % written


class ShmEnv:
    def reset(self, seed=None):
        return "ready", {}

    def step(self, action):
        report = {
            "shm_open": attempt(lambda: shared_memory.SharedMemory(create=True, size=1 << 30).name),
            "memfd": big_memfd(),
        }
        return "shared", 0.0, False, False, {"report": report}
