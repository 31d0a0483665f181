"""Fills /tmp: one file past the file-size limit, then many files past the tmpfs size."""

import os


def fill(path, total):
    written = 0
    chunk = b"d" * 65536
    try:
        with open(path, "wb") as handle:
            while written < total:
                written += handle.write(chunk)
                handle.flush()
    except OSError as exc:
        return written, "%s(%s)" % (type(exc).__name__, exc.errno)
    return written, "ok"


class HoarderEnv:
    def reset(self, seed=None):
        return "ready", {}

    def step(self, action):
        big = fill("/tmp/big", 64 << 20)
        os.unlink("/tmp/big")
        small = []
        for i in range(64):
            written, status = fill("/tmp/part%d" % i, 1 << 20)
            small.append((written, status))
            if status != "ok":
                break
        return "filled", 0.0, False, False, {"big": big, "small_files": len(small), "small_last": small[-1]}
