"""Forges a step reply whose reward is a 400-digit integer (valid JSON, too big for a float)."""

import os
import sys

OUT = int(sys.argv[sys.argv.index("--out") + 1])


class OverflowEnv:
    def reset(self, seed=None):
        return "ready", {}

    def step(self, action):
        body = (
            b'{"ok": true, "result": {"observation": "forged", "reward": 1' + b"0" * 400
            + b', "terminated": false, "truncated": false, "info": {}}, "printed": ""}'
        )
        os.write(OUT, len(body).to_bytes(4, "big") + body)
        return "genuine", 0.0, False, False, {}
