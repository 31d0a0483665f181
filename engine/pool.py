"""EnvPool: many sandboxed environment sessions behind one batched API.

Synchronous ``reset``/``step`` over a batch, and EnvPool's asynchronous ``send``/``recv`` so that a
trainer can overlap slow language-model turns with environment work.  Every session is its own
sandbox process; calls run concurrently (requests are written to all of them, then replies are
gathered as they arrive), and a session that dies costs only its own episode.

Each environment is an explicit state machine:

    idle --reset--> pending --reply--> running --step--> pending --reply--> running | done
    done --reset (or auto-reset on the next step)--> pending ...

Misuse (step before reset, a second call while one is in flight, unknown ids, wrong batch sizes,
non-string actions) raises a typed :class:`~sandbox.errors.SpadeError`.
"""

from __future__ import annotations

import select
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.errors import BatchSizeError, PoolClosedError, PoolStateError, UnknownEnvIdError
from engine.spec import EnvSpec
from engine.transcript import Transcript
from sandbox import CallResult, InvalidRequestError, Limits, Outcome, Sandbox, Session

DEFAULT_MAX_TURNS = 64

IDLE, PENDING, RUNNING, DONE = "idle", "pending", "running", "done"


@dataclass(frozen=True, slots=True)
class Batch:
    """Per-environment results of one batched call, in the order of ``env_ids``."""

    env_ids: list[int]
    observations: list[str]
    rewards: list[float]
    terminated: list[bool]
    truncated: list[bool]
    infos: list[dict[str, Any]]
    outcomes: list[Outcome]
    details: list[str]

    def __len__(self) -> int:
        return len(self.env_ids)


@dataclass
class _Transition:
    env_id: int
    observation: str
    reward: float
    terminated: bool
    truncated: bool
    info: dict[str, Any]
    outcome: Outcome
    detail: str


@dataclass
class _Slot:
    env_id: int
    spec: EnvSpec
    session: Session | None = None
    state: str = IDLE
    op: str = ""
    turns: int = 0
    cap: int = DEFAULT_MAX_TURNS
    seed: int | None = None
    transcript: Transcript | None = None
    episodes: int = 0
    replaced: int = 0
    pending_action: str | None = None
    history: list[Transcript] = field(default_factory=list)


def _as_spec(item: EnvSpec | str) -> EnvSpec:
    if isinstance(item, EnvSpec):
        return item
    if isinstance(item, str):
        return EnvSpec.from_source(item)
    raise InvalidRequestError(f"an EnvPool entry must be an EnvSpec or a source string, got {type(item).__name__}")


class EnvPool:
    """A batch of sandboxed environments, one session each (the same or different programs)."""

    def __init__(
        self,
        specs: Sequence[EnvSpec | str],
        *,
        backend: str = "nsjail",
        limits: Limits | None = None,
        max_turns: int = DEFAULT_MAX_TURNS,
        auto_reset: bool = False,
        sandbox: Sandbox | None = None,
    ) -> None:
        if not specs:
            raise BatchSizeError("an EnvPool needs at least one environment")
        if isinstance(max_turns, bool) or not isinstance(max_turns, int) or max_turns < 1:
            raise InvalidRequestError(f"max_turns must be a positive int, got {max_turns!r}")
        self.max_turns = max_turns
        self.auto_reset = auto_reset
        self._own_sandbox = sandbox is None
        self.sandbox = sandbox or Sandbox(backend, limits, warm=0)
        self._slots = [_Slot(env_id=i, spec=_as_spec(spec)) for i, spec in enumerate(specs)]
        self._ready: deque[_Transition] = deque()
        self._finished: list[Transcript] = []
        self._in_flight: dict[int, _Slot] = {}
        self._closed = False
        sessions = self.sandbox.open_many([(slot.spec.source, f"<env {slot.spec.sha256[:12]}>") for slot in self._slots])
        for slot, session in zip(self._slots, sessions, strict=True):
            self._attach(slot, session)

    # ------------------------------------------------------------------ facts

    @property
    def num_envs(self) -> int:
        return len(self._slots)

    @property
    def backend(self) -> str:
        return self.sandbox.backend_name

    def spec(self, env_id: int) -> EnvSpec:
        return self._slot(env_id).spec

    def state(self, env_id: int) -> str:
        return self._slot(env_id).state

    def session(self, env_id: int) -> Session | None:
        return self._slot(env_id).session

    def replacements(self, env_id: int) -> int:
        """How many times this environment's sandbox died and was replaced."""
        return self._slot(env_id).replaced

    def transcript(self, env_id: int) -> Transcript | None:
        """The current (or last) episode of ``env_id``."""
        return self._slot(env_id).transcript

    def pop_finished(self) -> list[Transcript]:
        """Episodes that ended since the last call, in the order they ended."""
        finished, self._finished = self._finished, []
        return finished

    # ------------------------------------------------------------------ synchronous verbs

    def reset(self, seeds: Sequence[int | None] | None = None, env_ids: Sequence[int] | None = None) -> Batch:
        ids = self._ids(env_ids)
        self.async_reset(seeds, ids)
        return self._gather(ids)

    def step(self, actions: Sequence[str], env_ids: Sequence[int] | None = None) -> Batch:
        ids = self._ids(env_ids)
        self.send(actions, ids)
        return self._gather(ids)

    # ------------------------------------------------------------------ asynchronous verbs

    def async_reset(self, seeds: Sequence[int | None] | None = None, env_ids: Sequence[int] | None = None) -> None:
        """Start resets; their first observations come back through :meth:`recv`."""
        ids = self._ids(env_ids)
        seeds = [None] * len(ids) if seeds is None else list(seeds)
        if len(seeds) != len(ids):
            raise BatchSizeError(f"got {len(seeds)} seeds for {len(ids)} environments")
        for seed in seeds:
            if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
                raise InvalidRequestError(f"seeds must be ints or None, got {seed!r}")
        for env_id in ids:
            if self._slots[env_id].state == PENDING:
                raise PoolStateError(f"env {env_id} already has a call in flight; recv() it first")
        for env_id, seed in zip(ids, seeds, strict=True):
            self._begin_reset(self._slots[env_id], seed)

    def send(self, actions: Sequence[str], env_ids: Sequence[int] | None = None) -> None:
        """Start steps; with auto-reset, an environment whose episode ended resets instead."""
        ids = self._ids(env_ids)
        if isinstance(actions, str) or len(actions) != len(ids):
            raise BatchSizeError(f"got {1 if isinstance(actions, str) else len(actions)} actions for {len(ids)} environments")
        for env_id, action in zip(ids, actions, strict=True):
            if not isinstance(action, str):
                raise InvalidRequestError(f"action for env {env_id} must be a str, got {type(action).__name__}")
            slot = self._slots[env_id]
            if slot.state == PENDING:
                raise PoolStateError(f"env {env_id} already has a call in flight; recv() it first")
            if slot.state == IDLE or (slot.state == DONE and not self.auto_reset):
                raise PoolStateError(f"env {env_id} has no episode in progress; reset it first")
        for env_id, action in zip(ids, actions, strict=True):
            slot = self._slots[env_id]
            if slot.state == DONE:
                self._begin_reset(slot, None if slot.seed is None else slot.seed + 1)
            else:
                self._begin_step(slot, action)

    def recv(self, min_ready: int = 1, timeout: float | None = None) -> Batch:
        """Results of whichever environments are ready: at least ``min_ready`` unless ``timeout`` ends first."""
        self._check_open()
        if not self._ready and not self._pending():
            raise PoolStateError("nothing in flight: send() or async_reset() first")
        end = None if timeout is None else time.monotonic() + timeout
        while len(self._ready) < min_ready and self._pending():
            if end is not None and time.monotonic() >= end:
                break
            self._poll(end)
        items = list(self._ready)
        self._ready.clear()
        return _to_batch(items)

    def close(self) -> None:
        """Close every session (and the sandbox if the pool made it); safe to call twice."""
        if self._closed:
            return
        self._closed = True
        for slot in self._slots:
            if slot.session is not None:
                slot.session.close()
        if self._own_sandbox:
            self.sandbox.close()

    def __enter__(self) -> EnvPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ internals

    def _check_open(self) -> None:
        if self._closed:
            raise PoolClosedError()

    def _ids(self, env_ids: Sequence[int] | None) -> list[int]:
        self._check_open()
        if env_ids is None:
            return list(range(self.num_envs))
        ids = list(env_ids)
        for env_id in ids:
            self._slot(env_id)
        if len(set(ids)) != len(ids):
            raise BatchSizeError(f"env ids repeat in {ids}")
        return ids

    def _slot(self, env_id: int) -> _Slot:
        if isinstance(env_id, bool) or not isinstance(env_id, int) or not 0 <= env_id < len(self._slots):
            raise UnknownEnvIdError(env_id, len(self._slots))
        return self._slots[env_id]

    def _pending(self) -> bool:
        return bool(self._in_flight)

    def _attach(self, slot: _Slot, session: Session) -> None:
        slot.session = session
        program_cap = session.max_turns if session.loaded.ok else None
        slot.cap = min(program_cap, self.max_turns) if program_cap and program_cap > 0 else self.max_turns

    def _ensure_session(self, slot: _Slot) -> None:
        session = slot.session
        if session is not None and (session.alive or (not session.loaded.ok and session.death is None)):
            return
        if session is not None:
            session.close()
            slot.replaced += 1
        self._attach(slot, self.sandbox.open(slot.spec.source, f"<env {slot.spec.sha256[:12]}>"))

    def _begin_reset(self, slot: _Slot, seed: int | None) -> None:
        self._ensure_session(slot)
        assert slot.session is not None
        slot.seed, slot.turns, slot.op, slot.pending_action = seed, 0, "reset", None
        slot.transcript = Transcript(env_sha256=slot.spec.sha256, seed=seed)
        slot.episodes += 1
        if not slot.session.loaded.ok:
            self._complete(slot, slot.session.loaded)
            return
        self._begin(slot, "reset", {"op": "reset", "seed": seed})

    def _begin_step(self, slot: _Slot, action: str) -> None:
        slot.op, slot.pending_action = "step", action
        self._begin(slot, "step", {"op": "step", "action": action})

    def _begin(self, slot: _Slot, op: str, message: dict[str, Any]) -> None:
        assert slot.session is not None
        slot.state = PENDING
        failed = slot.session.begin(op, message)
        if failed is not None:
            self._complete(slot, failed)
        else:
            self._in_flight[slot.session.reply_fd] = slot

    def _poll(self, end: float | None) -> None:
        """Wait for replies (or the soonest deadline) and complete every call that is ready or due."""
        in_flight = self._in_flight
        now = time.monotonic()
        soonest = min(slot.session.deadline for slot in in_flight.values())
        wait = max(0.0, soonest - now)
        if end is not None:
            wait = min(wait, max(0.0, end - now))
        poller = select.poll()
        for fd in in_flight:
            poller.register(fd, select.POLLIN)
        ready = {fd for fd, _ in poller.poll(int(wait * 1000) + 1)}
        now = time.monotonic()
        for fd, slot in list(in_flight.items()):
            if fd in ready or slot.session.deadline <= now:
                del in_flight[fd]
                self._complete(slot, slot.session.finish(known_readable=fd in ready))

    def _complete(self, slot: _Slot, result: CallResult) -> None:
        transcript = slot.transcript
        assert transcript is not None
        if slot.op == "step":
            transcript.actions.append(slot.pending_action or "")
        transcript.outcomes.append(result.outcome.value)
        if result.ok:
            transition = self._ok_transition(slot, result)
        else:
            transition = _Transition(slot.env_id, "", 0.0, False, True, {}, result.outcome, result.detail)
        transcript.observations.append(transition.observation)
        if slot.op == "step" or not result.ok:
            transcript.rewards.append(transition.reward)
        ended = transition.terminated or transition.truncated
        if ended:
            transcript.terminated, transcript.truncated = transition.terminated, transition.truncated
            success = transition.info.get("success")
            transcript.success = success if isinstance(success, bool) else transcript.episode_return > 0
            if not result.ok:
                transcript.success = False
            self._finished.append(transcript)
            slot.state = DONE
        else:
            slot.state = RUNNING
        self._ready.append(transition)

    def _ok_transition(self, slot: _Slot, result: CallResult) -> _Transition:
        if slot.op == "reset":
            return _Transition(slot.env_id, result.observation or "", 0.0, False, False, result.info, Outcome.OK, "")
        slot.turns += 1
        terminated = bool(result.terminated)
        truncated = bool(result.truncated) or (not terminated and slot.turns >= slot.cap)
        reward = float(result.reward or 0.0)
        return _Transition(slot.env_id, result.observation or "", reward, terminated, truncated, result.info, Outcome.OK, "")

    def _gather(self, ids: list[int]) -> Batch:
        wanted = set(ids)
        got: dict[int, _Transition] = {}
        keep: deque[_Transition] = deque()
        while True:
            while self._ready:
                item = self._ready.popleft()
                if item.env_id in wanted and item.env_id not in got:
                    got[item.env_id] = item
                else:
                    keep.append(item)
            if len(got) == len(wanted) or not self._pending():
                break
            self._poll(None)
        self._ready.extend(keep)
        return _to_batch([got[env_id] for env_id in ids])


def _to_batch(items: list[_Transition]) -> Batch:
    return Batch(
        env_ids=[t.env_id for t in items],
        observations=[t.observation for t in items],
        rewards=[t.reward for t in items],
        terminated=[t.terminated for t in items],
        truncated=[t.truncated for t in items],
        infos=[t.info for t in items],
        outcomes=[t.outcome for t in items],
        details=[t.detail for t in items],
    )
