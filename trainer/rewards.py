"""Rewards of both roles.

The Agent's reward is the environment's own episode return.  The Designer's is hint-based regret:
mean return with the hint minus mean return without it (high when the game is learnable but not yet
learned).  Two variants exist for ablations: SPADE's public blend and a pure learnable-band reward.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

BAND = (0.2, 0.8)
BLEND_PLATEAU = (0.4, 0.6)
BLEND_REGRET_SCALE = 0.15


class DesignerReward(StrEnum):
    REGRET = "regret"
    BLEND = "blend"
    BAND = "band"


@dataclass(frozen=True)
class Regret:
    """Hint-based regret of one environment, with the numbers it came from."""

    regret: float
    stderr: float
    mean_with_hint: float
    mean_without_hint: float
    win_rate_with_hint: float
    win_rate_without_hint: float
    episodes: int


def _stderr(values: Sequence[float]) -> float:
    return statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0


def hint_regret(
    returns_with_hint: Sequence[float],
    returns_without_hint: Sequence[float],
    wins_with_hint: Sequence[bool],
    wins_without_hint: Sequence[bool],
) -> Regret:
    """``mean(with) - mean(without)``; its standard error is that of a difference of two means."""
    if not returns_with_hint or not returns_without_hint:
        raise ValueError("regret needs at least one episode with and one without the hint")
    stderr = math.sqrt(_stderr(returns_with_hint) ** 2 + _stderr(returns_without_hint) ** 2)
    return Regret(
        regret=statistics.fmean(returns_with_hint) - statistics.fmean(returns_without_hint),
        stderr=stderr,
        mean_with_hint=statistics.fmean(returns_with_hint),
        mean_without_hint=statistics.fmean(returns_without_hint),
        win_rate_with_hint=statistics.fmean(map(float, wins_with_hint)) if wins_with_hint else 0.0,
        win_rate_without_hint=statistics.fmean(map(float, wins_without_hint)) if wins_without_hint else 0.0,
        episodes=len(returns_with_hint) + len(returns_without_hint),
    )


def plateau(win_rate: float, low: float, high: float) -> float:
    """1 inside [low, high], falling linearly to 0 at win rates 0 and 1."""
    if win_rate < low:
        return win_rate / low if low > 0 else 0.0
    if win_rate > high:
        return (1.0 - win_rate) / (1.0 - high) if high < 1 else 0.0
    return 1.0


def in_band(win_rate: float, band: tuple[float, float] = BAND) -> bool:
    return band[0] <= win_rate <= band[1]


def designer_reward(regret: Regret, kind: DesignerReward = DesignerReward.REGRET) -> float | None:
    """The Designer's reward for one admitted environment; ``None`` masks the sample (TRL's convention)."""
    if kind is DesignerReward.REGRET:
        return regret.regret
    if kind is DesignerReward.BLEND:
        if regret.regret < 0:
            return None
        return 0.6 * plateau(regret.win_rate_without_hint, *BLEND_PLATEAU) + 0.4 * regret.regret / BLEND_REGRET_SCALE
    return 1.0 if in_band(regret.win_rate_without_hint) else 0.0
