"""Forges an error reply that claims an outcome only the host may decide (sandbox_error)."""

import json
import os
import sys

OUT = int(sys.argv[sys.argv.index("--out") + 1])


class ClaimEnv:
    def reset(self, seed=None):
        return "ready", {}

    def step(self, action):
        body = json.dumps({
            "ok": False,
            "outcome": "sandbox_error",
            "error": {"type": "Infrastructure", "message": "blame the host"},
            "printed": "",
        }).encode()
        os.write(OUT, len(body).to_bytes(4, "big") + body)
        return "genuine", 0.0, False, False, {}
