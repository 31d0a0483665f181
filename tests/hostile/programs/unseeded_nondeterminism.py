"""Uses randomness and clocks that no seed controls (allowed here; determinism is checked elsewhere)."""

import os
import random
import time
import uuid


class ChaosEnv:
    def reset(self, seed=None):
        self.rng = random.SystemRandom()
        return "ready", {}

    def step(self, action):
        values = {
            "urandom": os.urandom(8).hex(),
            "system_random": self.rng.random(),
            "time": time.time(),
            "monotonic_ns": time.monotonic_ns(),
            "uuid4": str(uuid.uuid4()),
            "set_order": list({"alpha", "beta", "gamma", "delta", object().__class__.__name__}),
            "id": id(object()),
        }
        return repr(values), 0.0, False, False, values
