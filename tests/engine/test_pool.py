"""EnvPool on real sandboxes: batch semantics, async path, truncation, auto-reset, dying sessions."""

from __future__ import annotations

import pytest

from engine.errors import BatchSizeError, PoolClosedError, PoolStateError, UnknownEnvIdError
from engine.pool import EnvPool
from sandbox import InvalidRequestError, Limits, Outcome


@pytest.fixture
def pool_of(backend):
    pools: list[EnvPool] = []

    def make(sources, **kwargs):
        pool = EnvPool(sources, backend=backend, **kwargs)
        pools.append(pool)
        return pool

    yield make
    for pool in pools:
        pool.close()


def test_batch_reset_and_step_align_with_env_ids(pool_of, counter):
    pool = pool_of([counter] * 3)
    first = pool.reset(seeds=[1, 2, 1])
    assert first.env_ids == [0, 1, 2]
    assert first.outcomes == [Outcome.OK] * 3
    assert first.observations[0] == first.observations[2] != first.observations[1]
    assert [info["seed"] for info in first.infos] == [1, 2, 1]
    second = pool.step(["inc", "noop", "inc"])
    assert second.observations == ["n=1", "n=0", "n=1"]
    assert second.rewards == [0.1, 0.1, 0.1]
    partial = pool.step(["inc"], env_ids=[1])
    assert partial.env_ids == [1] and partial.observations == ["n=1"]


def test_episode_ends_and_is_recorded(pool_of, counter):
    pool = pool_of([counter])
    pool.reset(seeds=[4])
    for _ in range(3):
        last = pool.step(["inc"])
    assert last.terminated == [True] and last.infos[0]["success"] is True
    (episode,) = pool.pop_finished()
    assert episode.seed == 4 and episode.actions == ["inc"] * 3
    assert episode.rewards == [0.1, 0.1, 1.0] and episode.success is True
    assert episode.outcomes == ["ok"] * 4 and len(episode.observations) == 4
    with pytest.raises(PoolStateError, match="reset it first"):
        pool.step(["inc"])


def test_truncation_at_the_smaller_of_program_and_pool_cap(pool_of, counter, endless):
    pool = pool_of([counter, endless], max_turns=3)
    pool.reset(seeds=[0, 0])
    for turn in range(1, 4):
        batch = pool.step(["noop", "go"])
        assert batch.truncated == [turn == 3, turn == 3]
    capped_by_program = pool_of([counter], max_turns=50)
    capped_by_program.reset(seeds=[0])
    flags = [capped_by_program.step(["noop"]).truncated[0] for _ in range(5)]
    assert flags == [False, False, False, False, True]


def test_auto_reset_on_next_step(pool_of, counter):
    pool = pool_of([counter], auto_reset=True)
    pool.reset(seeds=[10])
    for _ in range(3):
        done = pool.step(["inc"])
    assert done.terminated == [True]
    again = pool.step(["inc"])
    assert again.observations[0].startswith("n=0") and again.rewards == [0.0]
    assert pool.transcript(0).seed == 11 and pool.transcript(0).actions == []
    assert pool.step(["inc"]).observations == ["n=1"]


def test_async_send_recv_returns_fast_envs_first(pool_of, slow):
    pool = pool_of([slow] * 3, limits=Limits(call_seconds=5))
    pool.reset(seeds=[0, 0, 0])
    pool.send(["0.8", "0", "0"], env_ids=[0, 1, 2])
    early = pool.recv(min_ready=2)
    assert sorted(early.env_ids) == [1, 2]
    with pytest.raises(PoolStateError, match="in flight"):
        pool.send(["0"], env_ids=[0])
    late = pool.recv(min_ready=1)
    assert late.env_ids == [0] and late.observations == ["slept 0.8"]
    with pytest.raises(PoolStateError, match="nothing in flight"):
        pool.recv()


def test_recv_timeout_returns_what_is_ready(pool_of, slow):
    pool = pool_of([slow], limits=Limits(call_seconds=5))
    pool.reset(seeds=[0])
    pool.send(["1.0"])
    assert len(pool.recv(min_ready=1, timeout=0.05)) == 0
    assert pool.recv(min_ready=1).observations == ["slept 1.0"]


def test_dying_session_ends_its_episode_and_is_replaced(pool_of, counter):
    pool = pool_of([counter] * 3)
    pool.reset(seeds=[0, 1, 2])
    batch = pool.step(["inc", "die", "inc"])
    assert batch.outcomes == [Outcome.OK, Outcome.CRASHED, Outcome.OK]
    assert batch.truncated == [False, True, False] and "status 7" in batch.details[1]
    assert pool.step(["inc"], env_ids=[0]).observations == ["n=2"]
    assert pool.reset(seeds=[5], env_ids=[1]).outcomes == [Outcome.OK]
    assert pool.replacements(1) == 1 and pool.replacements(0) == 0
    assert pool.step(["inc"], env_ids=[1]).observations == ["n=1"]


def test_env_error_ends_episode_but_keeps_sandbox(pool_of, counter):
    pool = pool_of([counter])
    pool.reset(seeds=[0])
    batch = pool.step(["raise"])
    assert batch.outcomes == [Outcome.ENV_ERROR] and "bad lever" in batch.details[0]
    assert batch.truncated == [True]
    pool.reset(seeds=[0])
    assert pool.replacements(0) == 0


def test_timeout_in_one_env_does_not_hold_the_batch_past_its_limit(pool_of, slow):
    pool = pool_of([slow] * 2, limits=Limits(call_seconds=0.5))
    pool.reset(seeds=[0, 0])
    batch = pool.step(["30", "0"])
    assert batch.outcomes == [Outcome.TIMEOUT, Outcome.OK]


def test_program_that_does_not_load_reports_at_reset(pool_of, counter):
    pool = pool_of([counter, "class Nope:\n    pass\n"])
    batch = pool.reset(seeds=[0, 0])
    assert batch.outcomes == [Outcome.OK, Outcome.PROTOCOL_ERROR]
    assert batch.truncated == [False, True]


def test_bad_input_is_named(pool_of, counter):
    pool = pool_of([counter] * 2)
    with pytest.raises(BatchSizeError, match="3 seeds for 2"):
        pool.reset(seeds=[0, 1, 2])
    pool.reset(seeds=[0, 1])
    with pytest.raises(BatchSizeError, match="1 actions for 2"):
        pool.step(["inc"])
    with pytest.raises(UnknownEnvIdError, match=r"ids 0\.\.1"):
        pool.step(["inc"], env_ids=[5])
    with pytest.raises(InvalidRequestError, match="must be a str"):
        pool.step(["inc", 4])
    with pytest.raises(BatchSizeError, match="repeat"):
        pool.step(["inc", "inc"], env_ids=[0, 0])
    pool.close()
    pool.close()
    with pytest.raises(PoolClosedError):
        pool.step(["inc", "inc"])
