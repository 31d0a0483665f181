"""Small statistics over timing samples: percentiles and medians, without numpy."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0..100) with linear interpolation between closest ranks."""
    if not values:
        raise ValueError("percentile of no values")
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100.0
    low, high = math.floor(rank), math.ceil(rank)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def latency(samples_s: Sequence[float], scale: float) -> dict[str, float | int]:
    """p50, p99 and the sample count of durations in seconds, scaled (1e3 for ms, 1e6 for us)."""
    return {
        "p50": round(percentile(samples_s, 50) * scale, 3),
        "p99": round(percentile(samples_s, 99) * scale, 3),
        "n": len(samples_s),
    }


def median(values: Sequence[float]) -> float:
    return statistics.median(values)
