"""Rewards, memory ranking, action extraction, corpus and config: small pure pieces."""

from __future__ import annotations

import json
import random

import pytest

from trainer.config import ConfigError, SelfPlayConfig
from trainer.corpus import Corpus, CorpusError
from trainer.memory import EnvMemory, MemoryConfig, MemoryEntry
from trainer.prompts import agent_messages, extract_action
from trainer.rewards import DesignerReward, designer_reward, hint_regret, plateau


def test_regret_blend_and_band():
    regret = hint_regret([1.0, 1.0, 0.0, 1.0], [0.0, 1.0, 0.0, 0.0], [True, True, False, True], [False, True, False, False])
    assert regret.regret == pytest.approx(0.5)
    assert regret.win_rate_without_hint == 0.25
    assert designer_reward(regret, DesignerReward.REGRET) == pytest.approx(0.5)
    assert designer_reward(regret, DesignerReward.BLEND) == pytest.approx(0.6 * (0.25 / 0.4) + 0.4 * 0.5 / 0.15)
    assert designer_reward(regret, DesignerReward.BAND) == 1.0
    negative = hint_regret([0.0], [1.0], [False], [True])
    assert designer_reward(negative, DesignerReward.BLEND) is None
    assert plateau(0.5, 0.4, 0.6) == 1.0 and plateau(0.9, 0.4, 0.6) == pytest.approx(0.25)
    with pytest.raises(ValueError, match="at least one episode"):
        hint_regret([], [1.0], [], [True])


def _entry(name: str, regret: float, win: float, seen: int = 0) -> MemoryEntry:
    return MemoryEntry(sha256=name, source=f"class {name}Env: pass", hint=None, regret=regret, win_rate_no_hint=win, episodes=4, last_seen_step=seen)


def test_memory_ranks_in_band_by_regret_with_staleness():
    memory = EnvMemory(MemoryConfig(staleness_weight=0.0))
    for entry in (_entry("a", 0.1, 0.5), _entry("b", 0.6, 0.3), _entry("c", 0.9, 0.95), _entry("d", 0.3, 0.7)):
        memory.add(entry)
    ranked = memory.ranked(step=10)
    assert [e.sha256 for e, _ in ranked] == ["b", "d", "a"]
    probabilities = [p for _, p in ranked]
    assert probabilities == sorted(probabilities, reverse=True) and sum(probabilities) == pytest.approx(1.0)
    assert [e.sha256 for e in memory.negatives(5)] == ["c"]
    stale = EnvMemory(MemoryConfig(staleness_weight=1.0))
    for entry in (_entry("fresh", 0.9, 0.5, seen=10), _entry("old", 0.1, 0.5, seen=0)):
        stale.add(entry)
    assert dict((e.sha256, p) for e, p in stale.ranked(step=10)) == {"fresh": 0.0, "old": 1.0}
    picked = stale.exemplars(1, step=10, rng=random.Random(0))
    assert [e.sha256 for e in picked] == ["old"] and picked[0].last_seen_step == 10


def test_memory_refuses_exact_duplicates_and_evicts_the_worst(tmp_path):
    memory = EnvMemory(MemoryConfig(capacity=2))
    assert memory.add(_entry("a", 0.5, 0.5)) == "added"
    assert memory.add(_entry("a", 0.5, 0.5)) == "exact"
    memory.add(_entry("b", 0.2, 0.99))
    memory.add(_entry("c", 0.4, 0.5))
    assert sorted(memory.entries) == ["a", "c"] and memory.rejected_duplicates == 1
    memory.save(tmp_path / "memory.json")
    again = EnvMemory.load(tmp_path / "memory.json")
    assert sorted(again.entries) == ["a", "c"] and again.config.capacity == 2


def test_memory_refuses_near_duplicates_by_embedding():
    vectors = {"alpha": [1.0, 0.0], "alpha2": [0.99, 0.05], "beta": [0.0, 1.0]}
    memory = EnvMemory(embedder=lambda texts: [vectors[t.split()[1].removesuffix("Env:")] for t in texts])
    assert memory.add(_entry("alpha", 0.1, 0.5)) == "added"
    assert memory.add(_entry("alpha2", 0.1, 0.5)) == "near"
    assert memory.add(_entry("beta", 0.1, 0.5)) == "added"


@pytest.mark.parametrize(
    ("reply", "action"),
    [
        ("I think... \nAction: open the door", "open the door"),
        ("**Action:** `left`", "`left`"),
        ("action: a\nAction: b", "b"),
        ("Let me try `north` now.", "north"),
        ("just go\n\n", "just go"),
        ("", ""),
        ("Action:    up    and   away  ", "up and away"),
        ("Action: " + "x" * 500, "x" * 200),
    ],
)
def test_action_extraction(reply, action):
    assert extract_action(reply) == action


def test_agent_prompt_carries_hint_only_when_hinted():
    history = [("You see a door.", "Action: open"), ("It opens.", None)]
    hinted = agent_messages(history, "say open")
    plain = agent_messages(history, None)
    assert "Privileged hint: say open" in hinted[0]["content"] and "hint" not in plain[0]["content"].lower()
    assert [m["role"] for m in plain] == ["system", "user", "assistant", "user"]
    assert plain[2]["content"] == "Action: open"


def test_corpus_sampling_is_seeded(tmp_path):
    corpus = Corpus.stdlib()
    assert len(corpus) > 500
    assert corpus.sample(3, seed=7) == corpus.sample(3, seed=7) != corpus.sample(3, seed=8)
    text = "word " * 100
    (tmp_path / "a.jsonl").write_text(json.dumps({"text": text}) + "\n")
    (tmp_path / "b.txt").write_text(text + "\n\n" + text)
    mine = Corpus.from_paths([tmp_path])
    assert len(mine) == 2
    (tmp_path / "bad.jsonl").write_text("{not json}\n")
    with pytest.raises(CorpusError, match=r"bad.jsonl:1: not JSON"):
        Corpus.from_paths([tmp_path / "bad.jsonl"])
    with pytest.raises(CorpusError, match="does not exist"):
        Corpus.from_paths([tmp_path / "missing"])


def test_config_rejects_nonsense(tmp_path):
    with pytest.raises(ConfigError, match="designs_per_step"):
        SelfPlayConfig(designs_per_step=0)
    with pytest.raises(ConfigError, match="unknown config key"):
        SelfPlayConfig.from_dict({"designs": 3})
    with pytest.raises(ConfigError, match="designer_reward"):
        SelfPlayConfig.from_dict({"designer_reward": "vibes"})
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"selfplay": {"episodes_per_condition": 5, "designer_reward": "blend"}}))
    config = SelfPlayConfig.from_file(path)
    assert config.episodes_per_condition == 5 and config.designer_reward is DesignerReward.BLEND
    assert SelfPlayConfig.from_dict(config.to_dict()) == config
