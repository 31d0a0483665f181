"""The example environments on the real nsjail backend: each loads, its oracle wins, and it replays exactly.

The broken programs are checked as far as a sandbox alone can tell (their static faults are the validator's
to find): each runtime fault shows up as the outcome or the property its name promises.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
ENVS = sorted((EXAMPLES / "envs").glob("*.py"))
BROKEN = sorted((EXAMPLES / "broken").glob("*.py"))
SEEDS = range(5)
JUNK = "xyzzy"


def _ids(paths: list[Path]) -> list[str]:
    return [path.stem for path in paths]


def _play(session, seed: int, choose, limit: int) -> list[tuple]:
    """One episode; ``choose(turn)`` returns an action or None for the oracle's. The transcript as tuples."""
    first = session.reset(seed=seed)
    assert first.ok, (first.outcome, first.detail)
    transcript = [(first.observation, first.info)]
    for turn in range(limit):
        action = choose(turn)
        if action is None:
            advice = session.oracle()
            assert advice.ok, (advice.outcome, advice.detail)
            action = advice.action
        result = session.step(action)
        assert result.ok, (result.outcome, result.detail, result.error)
        transcript.append((action, result.observation, result.reward, result.terminated, result.truncated, result.info))
        if result.terminated or result.truncated:
            break
    return transcript


def test_every_example_file_is_listed_in_the_readme():
    readme = (EXAMPLES / "README.md").read_text()
    missing = [
        f"{path.parent.name}/{path.name}" for path in ENVS + BROKEN if f"{path.parent.name}/{path.name}" not in readme
    ]
    assert not missing


@pytest.mark.parametrize("path", ENVS, ids=_ids(ENVS))
def test_example_loads_and_its_oracle_wins(open_env, path: Path):
    session = open_env(path.read_text())
    assert session.loaded.ok, (session.loaded.outcome, session.loaded.detail)
    assert isinstance(session.hint, str) and session.hint
    assert isinstance(session.max_turns, int) and session.max_turns > 0
    assert session.has_oracle
    for seed in SEEDS:
        transcript = _play(session, seed, lambda turn: None, session.max_turns)
        *_, last = transcript
        terminated, info = last[3], last[5]
        assert terminated and info.get("success") is True, f"seed {seed}: {transcript[-3:]}"
        assert all(math.isfinite(step[2]) for step in transcript[1:])


@pytest.mark.parametrize("path", ENVS, ids=_ids(ENVS))
def test_example_same_seed_replay_is_identical(open_env, path: Path):
    source = path.read_text()
    first = open_env(source)
    limit = first.max_turns
    played = [_play(first, seed, lambda turn: JUNK if turn % 3 == 1 else None, limit) for seed in range(2)]
    second = open_env(source)
    for seed, transcript in reversed(list(enumerate(played))):  # the other order: reset must leave nothing behind
        actions = [step[0] for step in transcript[1:]]
        replayed = _play(second, seed, lambda turn, actions=actions: actions[turn], len(actions))
        assert replayed == transcript, f"seed {seed}"


def _oracle_play(session, seed: int) -> list[tuple]:
    return _play(session, seed, lambda turn: None, session.max_turns)


def test_broken_reset_raises_is_env_error(open_env):
    session = open_env((EXAMPLES / "broken" / "exec_reset_raises.py").read_text())
    assert session.loaded.ok
    assert session.reset(seed=0).outcome == "env_error"


@pytest.mark.parametrize("name", ["exec_step_returns_wrong_shape", "exec_reward_nan"])
def test_broken_step_reply_is_protocol_error(open_env, name: str):
    session = open_env((EXAMPLES / "broken" / f"{name}.py").read_text())
    assert session.reset(seed=0).ok
    assert session.step(JUNK).outcome == "protocol_error"


@pytest.mark.parametrize(
    "name", ["nondeterministic_object_id", "nondeterministic_system_random", "nondeterministic_unseeded_random"]
)
def test_broken_nondeterministic_programs_differ_between_sessions(backend: str, open_env, name: str):
    source = (EXAMPLES / "broken" / f"{name}.py").read_text()
    secrets = set()
    for _ in range(3):
        session = open_env(source)
        assert session.reset(seed=3).ok
        secrets.add(session.oracle().action)
    if backend == "wasm" and name == "nondeterministic_object_id":
        # WebAssembly has no address-space randomisation: id() is the same in every session, so
        # this program really is deterministic there (its entropy-based siblings are not).
        assert len(secrets) == 1
    else:
        assert len(secrets) > 1


def test_broken_never_ends_runs_past_max_turns(open_env):
    session = open_env((EXAMPLES / "broken" / "termination_never_ends.py").read_text())
    transcript = _play(session, 0, lambda turn: None, session.max_turns)
    assert len(transcript) == session.max_turns + 1
    assert not any(step[3] or step[4] for step in transcript[1:])


def test_broken_oracle_loses(open_env):
    session = open_env((EXAMPLES / "broken" / "unsolvable_oracle_loses.py").read_text())
    for seed in SEEDS:
        *_, last = _oracle_play(session, seed)
        assert last[3] and last[5]["success"] is False


def test_broken_constant_return_pays_nothing_even_when_won(open_env):
    session = open_env((EXAMPLES / "broken" / "no_signal_constant_return.py").read_text())
    for seed in SEEDS:
        won = _oracle_play(session, seed)
        lost = _play(session, seed, lambda turn: "open 99", session.max_turns)
        assert won[-1][5]["success"] is True
        assert sum(step[2] for step in won[1:]) == sum(step[2] for step in lost[1:]) == 0.0
