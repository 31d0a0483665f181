"""Validation throughput in programs per minute: the engine's validator (all gates) on the measured programs."""

from __future__ import annotations

import time
from collections.abc import Sequence

from bench.backends import quiet
from bench.envs import BenchEnv

NOT_BUILT = "validation not built yet"


def measure_validation(
    backend: str, programs: Sequence[BenchEnv], seconds: float, budget: str = "default"
) -> tuple[float | None, str | None]:
    """Programs validated per minute on ``backend`` (``Validator.validate``, every gate, ``budget`` being
    ``"default"`` or ``"quick"``), or ``(None, reason)``.

    Programs are validated round-robin until ``seconds`` of wall time have passed (at least one); the
    figure counts verdicts, admitted or not.  Without ``engine.validate`` the reason is "validation not
    built yet".
    """
    try:
        from engine.spec import EnvSpec
        from engine.validate import Budget, Validator
    except ImportError:
        return None, NOT_BUILT
    if not programs:
        return None, "no programs to validate"
    specs = [EnvSpec.from_source(env.source, origin=env.origin) for env in programs]
    count = 0
    with quiet(), Validator(backend=backend, budget=Budget.quick() if budget == "quick" else Budget()) as validator:
        started = time.monotonic()
        while True:
            validator.validate(specs[count % len(specs)])
            count += 1
            elapsed = time.monotonic() - started
            if elapsed >= seconds:
                break
    return round(count / elapsed * 60.0, 1), None
