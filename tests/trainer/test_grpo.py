"""GRPO on TRL with a tiny random model: rewards and advantages per role and group, masks, updates."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="the train extra is not installed (pip install -e .[train])")

from engine.spec import EnvSpec  # noqa: E402
from policies import ScriptedPolicy  # noqa: E402
from tests.trainer.programs import FORBIDDEN, MAGIC, answer  # noqa: E402
from trainer.config import SelfPlayConfig  # noqa: E402
from trainer.grpo import GRPOSettings, build_trainer  # noqa: E402
from trainer.selfplay import SelfPlay  # noqa: E402

G = 2

# Pays a different amount for actions of different lengths, so that even a random model's episodes
# differ in return and the agent's groups have non-zero advantages.
LENGTHS = '''
HINT = "Longer actions pay more."

class LengthEnv:
    max_turns = 2
    def reset(self, seed=None):
        self.turn = 0
        return "Say anything.", {}
    def step(self, action):
        self.turn += 1
        done = self.turn >= 2
        return "Again.", float(len(action) % 7) / 6.0, done, False, {"success": len(action) % 7 > 3}
    def oracle(self):
        return "abcdef"
'''


@pytest.fixture
def parts(tmp_path):
    from policies.models import tiny_model
    from tests.conftest import ISOLATED_BACKENDS, _require

    _require(ISOLATED_BACKENDS[0])
    model, tokenizer = tiny_model(seed=0)

    def make(frozen: bool = False):
        config = SelfPlayConfig(designs_per_step=1, replay_per_step=0, use_corpus=False, frozen_designer=frozen,
                                agent_max_turns=2, agent_max_tokens=8, designer_max_tokens=16, backend=ISOLATED_BACKENDS[0])  # fmt: skip
        selfplay = SelfPlay(config, designer=None)  # type: ignore[arg-type]
        selfplay.seed_memory([EnvSpec.from_source(LENGTHS)])
        settings = GRPOSettings(num_generations=G, agent_envs=1, learning_rate=1e-2, max_completion_length=256)
        trainer, rollout = build_trainer(model, tokenizer, selfplay, settings, tmp_path, max_steps=1)
        rollout.fixed_designer = ScriptedPolicy.designer([answer(MAGIC), answer(FORBIDDEN)])
        return trainer, rollout, selfplay

    made = []

    def factory(frozen: bool = False):
        made.append(make(frozen))
        return made[-1]

    yield factory
    for _, _, selfplay in made:
        selfplay.close()


def _scored(trainer):
    inputs = [trainer.train_dataset[i] for i in range(trainer.args.generation_batch_size)]
    return trainer._generate_and_score_completions(inputs)


def test_rewards_and_advantages_come_from_own_role_and_group(parts):
    trainer, rollout, _ = parts()
    out = _scored(trainer)
    batch_roles = rollout.last_roles
    assert set(batch_roles) == {"designer", "agent_hint", "agent"}
    designs = rollout.last.designs
    assert [d.failed_gate for d in designs] == [None, "static"]
    rewards = [designs[0].reward, designs[1].reward]
    assert rewards[1] == -1.0  # the failed design is penalised and still in the batch
    advantages = out["advantages"].tolist()
    groups = [rewards]
    episodes = {True: [], False: []}
    for e in rollout.last.episodes:
        episodes[e.hinted].append(e.episode_return)
    groups += [episodes[True], episodes[False]]
    expected = []
    for group in groups:
        mean = sum(group) / len(group)
        std = (sum((x - mean) ** 2 for x in group) / (len(group) - 1)) ** 0.5
        expected += [(x - mean) / (std + 1e-4) for x in group]
    assert advantages == pytest.approx(expected, rel=1e-4, abs=1e-4)


def test_environment_tokens_carry_no_loss(parts):
    trainer, rollout, _ = parts()
    out = _scored(trainer)
    mask = out["completion_mask"] * out["tool_mask"]
    lengths = out["completion_mask"].sum(dim=1).tolist()
    model_tokens = mask.sum(dim=1).tolist()
    # designer rows: every token is the model's; agent rows of two turns: the observation between turns is not
    assert model_tokens[:G] == lengths[:G]
    assert all(m < n for m, n in zip(model_tokens[G:], lengths[G:], strict=True))
    assert rollout.template.template_mismatches == 0 and rollout.template.turns_joined >= 2 * G
    assert mask.sum() < out["completion_mask"].sum()


def test_frozen_designer_samples_carry_no_loss(parts):
    trainer, _, _ = parts(frozen=True)
    out = _scored(trainer)
    mask = out["completion_mask"] * out["tool_mask"]
    assert mask[:G].sum().item() == 0 and out["completion_mask"][:G].sum().item() > 0
    assert mask[G:].sum().item() > 0


def test_one_training_step_changes_the_weights(parts, tmp_path):
    trainer, _, _ = parts()
    before = {name: p.detach().clone() for name, p in trainer.model.named_parameters() if p.requires_grad}
    trainer.train()
    changed = [name for name, p in trainer.model.named_parameters() if p.requires_grad and not torch.equal(before[name], p)]
    assert len(changed) >= 0.5 * len(before), f"only {len(changed)} of {len(before)} parameters changed"
    lines = (tmp_path / "metrics.jsonl").read_text().splitlines()
    assert len(lines) == 1 and '"loss"' in lines[0] and '"rewards_by_role"' in lines[0]
