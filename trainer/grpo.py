"""SPADE's update on TRL's GRPOTrainer, through its ``rollout_func`` seam (TRL is not forked).

Each training step TRL asks for one batch of completions.  ``SpadeRollout`` answers by running one
self-play step with the model being trained, and returns role-homogeneous groups of
``num_generations`` samples, in this order:

    designer groups: the completions of one design prompt (rewards: regret, or a penalty)
    agent groups:    for each played environment, its episodes with the hint, then without
                     (rewards: the episode returns), each episode one multi-turn completion

TRL normalises advantages per consecutive group of ``num_generations``, so each sample's advantage
comes from its own role and group.  The rewards travel to TRL's reward function as the extra key
``spade_reward``; environment tokens and a frozen Designer's tokens carry ``env_mask`` 0 (no loss).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from sandbox.errors import SpadeError
from trainer.selfplay import SelfPlay, StepResult
from trainer.sequences import Sequence_, TemplateStats, design_sequence, episode_sequence


class GRPOSetupError(SpadeError, ValueError):
    """The GRPO settings cannot produce role-homogeneous groups."""


@dataclass(frozen=True)
class GRPOSettings:
    """Training knobs on top of :class:`~trainer.config.SelfPlayConfig`."""

    num_generations: int = 4
    """Samples per GRPO group: designs per design prompt, and episodes per environment and condition."""

    agent_envs: int = 1
    """Environments whose hinted and unhinted groups are trained on each step."""

    learning_rate: float = 1e-6
    beta: float = 0.0
    """KL coefficient against the reference model (0: no reference model is kept)."""

    max_completion_length: int = 2048
    lora: bool = False
    lora_r: int = 16
    use_vllm: bool = False
    vllm_mode: str = "colocate"
    save_steps: int = 50
    seed: int = 0

    def __post_init__(self) -> None:
        if self.num_generations < 2:
            raise GRPOSetupError("num_generations must be >= 2: GRPO compares samples within a group")
        if self.agent_envs < 0:
            raise GRPOSetupError("agent_envs must be >= 0")
        if self.vllm_mode not in ("colocate", "server"):
            raise GRPOSetupError(f"vllm_mode must be 'colocate' or 'server', got {self.vllm_mode!r}")


def groups_per_step(selfplay: SelfPlay, settings: GRPOSettings) -> int:
    return selfplay.config.designs_per_step + 2 * settings.agent_envs


class SpadeRollout:
    """TRL ``RolloutFunc``: one self-play step per call, returned as role-homogeneous groups."""

    def __init__(
        self,
        selfplay: SelfPlay,
        settings: GRPOSettings,
        *,
        first_step: int = 1,
        on_result: Callable[[StepResult], None] | None = None,
        fixed_designer: Any = None,
    ) -> None:
        self.fixed_designer = fixed_designer
        self.selfplay = selfplay
        self.settings = settings
        self.on_result = on_result
        self.step = first_step - 1
        self.last: StepResult | None = None
        self.last_timing: dict[str, float] = {}
        self.last_roles: dict[str, dict[str, float | int | None]] = {}
        self.template = TemplateStats()

    def __call__(self, prompts: list[Any], trainer: Any) -> dict[str, list[Any]]:
        from policies.hf import HFPolicy

        started = time.monotonic()
        self.step += 1
        g = self.settings.num_generations
        wanted_groups = len(prompts) // g
        if len(prompts) % g or wanted_groups != groups_per_step(self.selfplay, self.settings):
            raise GRPOSetupError(
                f"TRL asked for {len(prompts)} completions; SPADE makes {groups_per_step(self.selfplay, self.settings)} "
                f"groups of {g} per step (designs_per_step + 2 x agent_envs); set generation_batch_size accordingly"
            )
        model = trainer.accelerator.unwrap_model(trainer.model)
        policy = TRLVLLMPolicy(trainer) if getattr(trainer, "use_vllm", False) else HFPolicy(model, trainer.processing_class)
        self.selfplay.agent = policy
        self.selfplay.designer = self.fixed_designer or policy
        was_training = model.training
        model.eval()
        try:
            result = self.selfplay.run_step(
                self.step, samples_per_design=g, min_envs=self.settings.agent_envs, episodes_per_condition=g
            )
        finally:
            model.train(was_training)
        self.last = result
        if self.on_result is not None:
            self.on_result(result)
        batch = self._batch(result, trainer.processing_class)
        self.last_roles = role_statistics(batch)
        self.last_timing = {**result.metrics["seconds"], "rollout": time.monotonic() - started}
        return batch

    def _batch(self, result: StepResult, tokenizer: Any) -> dict[str, list[Any]]:
        g = self.settings.num_generations
        trainable = not self.selfplay.config.frozen_designer
        sequences: list[Sequence_] = []
        rewards: list[float | None] = []
        roles: list[str] = []
        for request in range(self.selfplay.config.designs_per_step):
            group = [d for d in result.designs if d.request_index == request]
            if len(group) != g:
                raise GRPOSetupError(f"design prompt {request} has {len(group)} samples, expected {g}")
            for design in group:
                sequences.append(design_sequence(tokenizer, design.prompt, design.generation, trainable=trainable))
                rewards.append(design.reward)
                roles.append("designer")
        by_env: dict[str, dict[bool, list[Any]]] = {}
        for episode in result.episodes:
            by_env.setdefault(episode.env_sha256, {True: [], False: []})[episode.hinted].append(episode)
        trained_envs = [spec.sha256 for spec in result.played][: self.settings.agent_envs]
        if len(trained_envs) < self.settings.agent_envs:
            raise GRPOSetupError(f"only {len(trained_envs)} environments were played; memory cannot supply {self.settings.agent_envs}")
        for sha in trained_envs:
            for hinted in (True, False):
                group = by_env[sha][hinted]
                for episode in group:
                    if not episode.turns:  # the sandbox died at reset: no tokens, no score
                        sequences.append(Sequence_([tokenizer.eos_token_id or 0], [tokenizer.eos_token_id or 0], [0.0], [0]))
                        rewards.append(None)
                    else:
                        sequences.append(episode_sequence(tokenizer, episode, self.template))
                        rewards.append(episode.episode_return)
                    roles.append("agent_hint" if hinted else "agent")
        return {
            "prompt_ids": [s.prompt_ids for s in sequences],
            "completion_ids": [s.completion_ids for s in sequences],
            "logprobs": [s.logprobs for s in sequences],
            "env_mask": [s.env_mask for s in sequences],
            "spade_reward": rewards,
            "spade_role": roles,
        }


class TRLVLLMPolicy:
    """Generation through the trainer's own vLLM (colocate or server), whose weights TRL keeps in sync.

    Sampling settings (temperature, top_p, max tokens) are TRL's (``GRPOConfig``); the ``SamplingParams``
    passed here contribute only ``n``.
    """

    name = "trl-vllm"

    def __init__(self, trainer: Any) -> None:
        self.trainer = trainer
        self.tokenizer = trainer.processing_class

    def generate(self, prompts: Any, params: Any) -> list[list[Any]]:
        from policies.base import Generation

        encoded = [
            list(self.tokenizer.apply_chat_template(list(messages), tokenize=True, add_generation_prompt=True, return_dict=False))
            for messages in prompts
        ]
        repeated = [ids for ids in encoded for _ in range(params.n)]
        prompt_ids, completion_ids, logprobs, _ = self.trainer.vllm_generation.generate(repeated, None, params.n)
        out: list[list[Any]] = []
        for index in range(len(encoded)):
            group = []
            for k in range(params.n):
                row = index * params.n + k
                ids = list(completion_ids[row])
                chosen = [float(lp[0]) if lp and lp[0] is not None else 0.0 for lp in logprobs[row]]
                text = self.tokenizer.decode(ids, skip_special_tokens=True)
                finish = "stop" if ids and ids[-1] == self.tokenizer.eos_token_id else "length"
                group.append(Generation(text, tuple(prompt_ids[row]), tuple(ids), tuple(chosen), finish))
            out.append(group)
        return out


def spade_reward(prompts: list[Any], completions: list[Any], spade_reward: list[float | None], **kwargs: Any) -> list[float | None]:
    """TRL reward function: the rewards SPADE computed outside TRL (``None`` masks a sample)."""
    return list(spade_reward)


def role_statistics(batch: dict[str, list[Any]]) -> dict[str, dict[str, float | int | None]]:
    stats: dict[str, dict[str, float | int | None]] = {}
    for role in sorted(set(batch["spade_role"])):
        values = [r for r, x in zip(batch["spade_reward"], batch["spade_role"], strict=True) if x == role and r is not None]
        mean = sum(values) / len(values) if values else None
        var = sum((v - mean) ** 2 for v in values) / len(values) if values and mean is not None else None
        stats[role] = {"count": len(values), "reward_mean": mean, "reward_std": None if var is None else var**0.5}
    return stats


def build_trainer(
    model: Any,
    tokenizer: Any,
    selfplay: SelfPlay,
    settings: GRPOSettings,
    run_dir: str | Path,
    *,
    max_steps: int,
    first_step: int = 1,
    on_result: Callable[[StepResult], None] | None = None,
) -> tuple[Any, SpadeRollout]:
    """A GRPOTrainer wired to SPADE: one self-play step per optimiser step."""
    from datasets import Dataset
    from transformers import TrainerCallback
    from trl import GRPOConfig, GRPOTrainer

    run_dir = Path(run_dir)
    batch = groups_per_step(selfplay, settings) * settings.num_generations
    config = GRPOConfig(
        output_dir=str(run_dir / "checkpoints"),
        per_device_train_batch_size=batch,
        gradient_accumulation_steps=1,
        generation_batch_size=batch,
        num_generations=settings.num_generations,
        max_completion_length=settings.max_completion_length,
        learning_rate=settings.learning_rate,
        beta=settings.beta,
        max_steps=max_steps,
        logging_steps=1,
        save_steps=settings.save_steps,
        report_to=[],
        seed=settings.seed,
        use_vllm=settings.use_vllm,
        vllm_mode=settings.vllm_mode,
        use_cpu=not _cuda(),
        bf16=False,
        shuffle_dataset=False,
        disable_tqdm=True,
    )
    rollout = SpadeRollout(selfplay, settings, first_step=first_step, on_result=on_result)
    peft_config = None
    if settings.lora:
        from peft import LoraConfig

        peft_config = LoraConfig(r=settings.lora_r, lora_alpha=2 * settings.lora_r, target_modules="all-linear", task_type="CAUSAL_LM")
    dataset = Dataset.from_dict({"prompt": [[{"role": "user", "content": "spade self-play step"}]] * (batch * max(1, max_steps))})

    class MetricsCallback(TrainerCallback):
        """Writes one JSON line per step: self-play metrics, rewards per role, TRL's logs, timings."""

        def __init__(self) -> None:
            self.step_started = 0.0

        def on_step_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            self.step_started = time.monotonic()

        def on_log(self, args: Any, state: Any, control: Any, logs: dict[str, Any] | None = None, **kwargs: Any) -> None:
            if rollout.last is None or logs is None or "loss" not in logs:
                return
            step_seconds = time.monotonic() - self.step_started
            timing = dict(rollout.last_timing)
            timing["update"] = max(0.0, step_seconds - timing.get("rollout", 0.0))
            timing["step"] = step_seconds
            engine = timing.get("sandbox", 0.0) + timing.get("validation", 0.0)
            line = {
                "step": state.global_step,
                "selfplay": rollout.last.metrics,
                "rewards_by_role": rollout.last_roles,
                "trl": {k: v for k, v in logs.items() if isinstance(v, int | float)},
                "seconds": timing,
                "engine_share": engine / step_seconds if step_seconds else None,
                "template_mismatches": rollout.template.template_mismatches,
            }
            with open(run_dir / "metrics.jsonl", "a", encoding="utf-8") as handle:
                handle.write(json.dumps(line) + "\n")

    trainer = GRPOTrainer(
        model=model,
        reward_funcs=[spade_reward],
        args=config,
        train_dataset=dataset,
        processing_class=tokenizer,
        rollout_func=rollout,
        peft_config=peft_config,
        callbacks=[MetricsCallback()],
    )
    (run_dir / "grpo_settings.json").write_text(json.dumps(asdict(settings), indent=2))
    return trainer, rollout


def _cuda() -> bool:
    import torch

    return torch.cuda.is_available()
