"""What one benchmark run measures and how hard: a frozen config, quick or full."""

from __future__ import annotations

from dataclasses import dataclass, replace

SECTIONS = ("cold_start", "step", "throughput", "validation", "profile")
"""Sections in the order they run; ``--only NAME`` picks one."""


class UnknownSectionError(ValueError):
    """``--only`` named a section that does not exist."""

    def __init__(self, name: str) -> None:
        super().__init__(f"unknown section {name!r}; choose one of {', '.join(SECTIONS)}")
        self.name = name


@dataclass(frozen=True)
class BenchConfig:
    """Sample counts and time budgets of one run (the full defaults take a few minutes on 2 cores)."""

    quick: bool = False
    """True for the sub-minute run (fewer samples, shorter repeats); figures are noisier."""

    sections: tuple[str, ...] = SECTIONS
    """Sections to run; the others stay null with the reason "section not run"."""

    cold_samples: int = 60
    """Sessions opened per sandboxed cold-start variant."""

    inprocess_cold_samples: int = 1000
    """In-process instantiations timed for the cold-start floor."""

    warm: int = 2
    """Warm pool size of the ``*_warm`` cold-start variants (the Sandbox default)."""

    step_samples: int = 3000
    """Timed steps per backend for the round-trip figures."""

    sizes: tuple[int, ...] = (1, 8, 64)
    """Batch sizes of the throughput section."""

    max_pool_size: int = 64
    """Largest batch run on sandboxed pools; larger sizes are null (``--quick`` keeps pool start-up short)."""

    repeats: int = 5
    """Timed repeats per throughput figure (the figure is their median)."""

    seconds_per_repeat: float = 1.0
    """Minimum wall time of one throughput repeat."""

    profile_steps: int = 3000
    """Steps per live round trip in the step profile."""

    timeit_number: int = 5000
    """Calls per timeit run in the step profile's host and guest costs."""

    envs: int = 3
    """Programs taken from examples/envs (counter first); throughput fills batches round-robin."""

    validation_seconds: float = 10.0
    """Wall time of the validation measurement per backend (at least one program is validated)."""

    validation_budget: str = "default"
    """The validator's evidence budget: ``default`` (what admission uses) or ``quick``."""

    def __post_init__(self) -> None:
        for name in self.sections:
            if name not in SECTIONS:
                raise UnknownSectionError(name)
        if min(self.cold_samples, self.inprocess_cold_samples, self.step_samples, self.repeats, self.envs) < 1:
            raise ValueError("sample counts, repeats and envs must be at least 1")
        if self.validation_budget not in ("default", "quick"):
            raise ValueError(f"validation_budget must be 'default' or 'quick', got {self.validation_budget!r}")
        if not self.sizes or min(self.sizes) < 1:
            raise ValueError("throughput sizes must be positive")

    @classmethod
    def make(cls, quick: bool = False, only: str | None = None) -> BenchConfig:
        """The full or quick configuration, restricted to one section if ``only`` is given."""
        config = cls()
        if quick:
            config = replace(
                config,
                quick=True,
                cold_samples=5,
                inprocess_cold_samples=200,
                step_samples=300,
                max_pool_size=8,
                repeats=2,
                seconds_per_repeat=0.1,
                profile_steps=200,
                timeit_number=300,
                validation_seconds=0.1,
                validation_budget="quick",
            )
        if only is not None:
            if only not in SECTIONS:
                raise UnknownSectionError(only)
            config = replace(config, sections=(only,))
        return config
