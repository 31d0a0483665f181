"""Environment specs, the batched step API, validation gates and the pool store.

Imports stay light: no torch, no language models.
"""

from engine.errors import BatchSizeError, PoolClosedError, PoolStateError, UnknownEnvIdError
from engine.pool import Batch, EnvPool
from engine.replay import Divergence, ReplayReport, replay
from engine.spec import EnvSpec, SpecError
from engine.store import PoolStore, PoolStoreError
from engine.transcript import Transcript
from engine.validate import Budget, GateResult, Validator, Verdict, validate

__all__ = [
    "Batch",
    "BatchSizeError",
    "Budget",
    "Divergence",
    "EnvPool",
    "EnvSpec",
    "GateResult",
    "PoolClosedError",
    "PoolStateError",
    "PoolStore",
    "PoolStoreError",
    "ReplayReport",
    "SpecError",
    "Transcript",
    "UnknownEnvIdError",
    "Validator",
    "Verdict",
    "replay",
    "validate",
]
