"""Replay: re-run an episode from (environment hash, seed, actions) in a fresh sandbox."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.spec import EnvSpec, SpecError
from engine.transcript import Transcript
from sandbox import Limits, Sandbox


@dataclass(frozen=True)
class Divergence:
    """The first place where the replay differs from the record."""

    turn: int
    """0 is the reset; n is the n-th step."""

    field: str
    expected: Any
    got: Any


@dataclass(frozen=True)
class ReplayReport:
    matched: bool
    replayed: Transcript
    divergence: Divergence | None = None


def replay(
    transcript: Transcript,
    spec: EnvSpec,
    *,
    backend: str = "nsjail",
    limits: Limits | None = None,
    sandbox: Sandbox | None = None,
) -> ReplayReport:
    """Re-run ``transcript`` against ``spec`` in a fresh session and report the first divergence."""
    if spec.sha256 != transcript.env_sha256:
        raise SpecError(f"the transcript is of environment {transcript.env_sha256[:12]}, not {spec.sha256[:12]}")
    owned = sandbox is None
    sandbox = sandbox or Sandbox(backend, limits, warm=0)
    again = Transcript(env_sha256=spec.sha256, seed=transcript.seed)
    try:
        with sandbox.open(spec.source) as session:
            first = session.loaded if not session.loaded.ok else session.reset(seed=transcript.seed)
            again.outcomes.append(first.outcome.value)
            again.observations.append(first.observation or "")
            if not first.ok:
                again.rewards.append(0.0)
            for action in transcript.actions:
                if not session.alive:
                    break
                result = session.step(action)
                again.actions.append(action)
                again.outcomes.append(result.outcome.value)
                again.observations.append(result.observation or "")
                again.rewards.append(float(result.reward or 0.0))
                if result.ok:
                    again.terminated, again.truncated = bool(result.terminated), bool(result.truncated)
                else:
                    again.truncated = True
    finally:
        if owned:
            sandbox.close()
    divergence = first_divergence(transcript, again)
    return ReplayReport(matched=divergence is None, replayed=again, divergence=divergence)


def first_divergence(expected: Transcript, got: Transcript) -> Divergence | None:
    """Compare turn by turn: outcome, then observation, then reward."""
    turns = max(len(expected.outcomes), len(got.outcomes))
    for turn in range(turns):
        for name in ("outcomes", "observations", "rewards"):
            values_e, values_g = getattr(expected, name), getattr(got, name)
            index = turn if name != "rewards" else turn - 1
            if name == "rewards" and (index < 0 and expected.outcomes[:1] == ["ok"]):
                continue
            e = values_e[index] if 0 <= index < len(values_e) else None
            g = values_g[index] if 0 <= index < len(values_g) else None
            if e != g:
                return Divergence(turn=turn, field=name.rstrip("s"), expected=e, got=g)
    return None
