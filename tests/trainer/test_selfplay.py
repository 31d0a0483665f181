"""A hand-computed self-play step with scripted policies on the real sandbox."""

from __future__ import annotations

import random
import statistics

import pytest

from policies import ScriptedPolicy
from tests.trainer.programs import BOMB, COIN, FORBIDDEN, LOSING_ORACLE, MAGIC, answer
from trainer.config import SelfPlayConfig
from trainer.selfplay import SelfPlay, episode_seeds

K = 3


def plan(observation: str, hinted: bool) -> str:
    text = observation.lower()
    if "door" in text:
        return "open" if hinted else "close"
    if "coin" in text:
        return "tails" if hinted else "heads"
    if "boom" in text:
        return "wait" if hinted else "boom"
    return "noop"


@pytest.fixture(scope="module")
def step():
    from tests.conftest import ISOLATED_BACKENDS, _require

    _require(ISOLATED_BACKENDS[0])
    designer = ScriptedPolicy.designer(
        [answer(MAGIC), answer(COIN), answer(FORBIDDEN), "I would rather not.", answer(LOSING_ORACLE), answer(MAGIC), answer(BOMB)]
    )
    config = SelfPlayConfig(designs_per_step=7, replay_per_step=0, episodes_per_condition=K, use_corpus=False, backend=ISOLATED_BACKENDS[0])
    selfplay = SelfPlay(config, designer, ScriptedPolicy.agent(plan))
    result = selfplay.run_step(1)
    yield selfplay, result
    selfplay.close()


def _coin_returns(sha: str, call: str) -> list[float]:
    sides = [random.Random(seed).choice(["heads", "tails"]) for seed in episode_seeds(1, sha, K, 0)]
    return [1.0 if side == call else 0.25 for side in sides]


def test_each_design_gets_its_own_verdict_and_reward(step):
    _, result = step
    designs = result.designs
    assert [d.failed_gate for d in designs] == [None, None, "static", "parse", "solvability", None, None]
    assert [d.duplicate for d in designs] == [None, None, None, None, None, "exact", None]
    coin_sha = designs[1].spec.sha256
    coin_regret = statistics.fmean(_coin_returns(coin_sha, "tails")) - statistics.fmean(_coin_returns(coin_sha, "heads"))
    assert [d.reward for d in designs] == pytest.approx([1.0, coin_regret, -1.0, -1.0, -1.0, 0.0, 1.0])
    assert "socket" in designs[2].detail and "no fenced code block" in designs[3].detail


def test_regret_and_its_standard_error(step):
    _, result = step
    magic, coin, bomb = (result.designs[i].spec.sha256 for i in (0, 1, 6))
    assert result.regrets[magic].regret == 1.0 and result.regrets[magic].stderr == 0.0
    with_hint, without = _coin_returns(coin, "tails"), _coin_returns(coin, "heads")
    expected_se = (statistics.stdev(with_hint) ** 2 / K + statistics.stdev(without) ** 2 / K) ** 0.5
    assert result.regrets[coin].stderr == pytest.approx(expected_se)
    assert result.regrets[bomb].win_rate_with_hint == 1.0 and result.regrets[bomb].win_rate_without_hint == 0.0


def test_an_environment_whose_sandbox_dies_costs_only_its_episodes(step):
    _, result = step
    bomb = result.designs[6].spec.sha256
    failed = [e for e in result.episodes if e.outcome != "ok"]
    assert len(failed) == K and all(e.env_sha256 == bomb and not e.hinted for e in failed)
    assert {e.outcome for e in failed} == {"memory_limit"}
    assert all(e.success for e in result.episodes if e.env_sha256 == bomb and e.hinted)


def test_metrics_of_the_step(step):
    _, result = step
    m = result.metrics
    assert (m["designs"], m["admitted"], m["rejected"], m["duplicates"]) == (7, 3, 3, 1)
    assert m["rejected_by_gate"] == {"parse": 1, "solvability": 1, "static": 1}
    assert m["envs_played"] == 3 and m["episodes"] == 3 * 2 * K and m["episodes_failed"] == K
    regrets = [r.regret for r in result.regrets.values()]
    assert m["regret_mean"] == pytest.approx(statistics.fmean(regrets))
    assert m["agent_success_with_hint"] == pytest.approx(statistics.fmean([float(e.success) for e in result.episodes if e.hinted]))
    assert m["duplicate_share"] == pytest.approx(1 / 7)
    assert set(m["seconds"]) == {"generation", "validation", "sandbox"}
    assert m["memory_size"] == 3


def test_memory_records_admitted_designs_with_lineage_free_win_rates(step):
    selfplay, result = step
    magic = result.designs[0].spec.sha256
    entry = selfplay.memory.entries[magic]
    assert (entry.win_rate_hint, entry.win_rate_no_hint, entry.regret, entry.episodes) == (1.0, 0.0, 1.0, 2 * K)
    assert result.designs[1].spec.sha256 in selfplay.memory and result.designs[4].spec is not None
    assert result.designs[4].spec.sha256 not in selfplay.memory
