"""Makes json.dumps allow NaN inside the guest, so that NaN reaches the host's channel."""

import json
import math

_real_dumps = json.dumps


def lax_dumps(obj, **kwargs):
    kwargs["allow_nan"] = True
    return _real_dumps(obj, **kwargs)


class SneakyNanEnv:
    def reset(self, seed=None):
        json.dumps = lax_dumps
        math.isfinite = lambda value: True
        return "tampered", {}

    def step(self, action):
        return "nan", float("nan"), False, False, {"also": float("inf")}
