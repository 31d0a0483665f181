"""Maps 512 MiB of anonymous shared memory and touches every page."""

import mmap


class MmapEnv:
    def reset(self, seed=None):
        return "ready", {}

    def step(self, action):
        size = 512 << 20
        region = mmap.mmap(-1, size, flags=mmap.MAP_SHARED | mmap.MAP_ANONYMOUS)
        for offset in range(0, size, 4096):
            region[offset] = 1
        return "touched", 0.0, False, False, {}
