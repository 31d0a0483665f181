"""Forges a step reply whose JSON escapes smuggle lone surrogates (text no UTF-8 can carry)."""

import os
import sys

OUT = int(sys.argv[sys.argv.index("--out") + 1])


class SurrogateEnv:
    def reset(self, seed=None):
        return "ready", {}

    def step(self, action):
        body = (
            b'{"ok": true, "result": {"observation": "forged \\ud800 \\udfff", "reward": 0.0,'
            b' "terminated": false, "truncated": false, "info": {}}, "printed": ""}'
        )
        os.write(OUT, len(body).to_bytes(4, "big") + body)
        return "genuine", 0.0, False, False, {}
