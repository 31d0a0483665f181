"""Replay from (hash, seed, actions) in a fresh sandbox, and divergence reports."""

from __future__ import annotations

import pytest

from engine.pool import EnvPool
from engine.replay import replay
from engine.spec import EnvSpec, SpecError


def _play(backend, spec, seed, actions):
    with EnvPool([spec], backend=backend) as pool:
        pool.reset(seeds=[seed])
        for action in actions:
            if pool.step([action]).terminated[0]:
                break
        return pool.transcript(0)


def test_replay_of_a_deterministic_episode_matches(backend, counter):
    spec = EnvSpec.from_source(counter)
    transcript = _play(backend, spec, 3, ["inc", "noop", "inc", "inc"])
    report = replay(transcript, spec, backend=backend)
    assert report.matched and report.divergence is None
    assert report.replayed.observations == transcript.observations


def test_replay_reports_first_divergence(backend, wall_clock):
    spec = EnvSpec.from_source(wall_clock)
    transcript = _play(backend, spec, 0, ["a", "b"])
    report = replay(transcript, spec, backend=backend)
    assert not report.matched
    assert report.divergence.turn == 1 and report.divergence.field == "observation"
    assert report.divergence.expected.startswith("t=") and report.divergence.expected != report.divergence.got


def test_replay_refuses_another_program(backend, counter, endless):
    transcript = _play(backend, EnvSpec.from_source(counter), 0, ["inc"])
    with pytest.raises(SpecError, match="transcript is of environment"):
        replay(transcript, EnvSpec.from_source(endless), backend=backend)
