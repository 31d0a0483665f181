"""Emits text that is not valid UTF-8 everywhere it can: raw fds, print, observation, info."""

import os


class MojibakeEnv:
    def reset(self, seed=None):
        return "ready", {}

    def step(self, action):
        wrote = os.write(1, b"\xff\xfe\xc3\x28 bad bytes\n") + os.write(2, b"\xed\xa0\x80\n")
        print("lone surrogate: \udcff \ud800")
        observation = "obs \udcff\ud800 end"
        return observation, 0.0, False, False, {"k\udcff": "v\ud800", "raw_bytes_written": wrote}
