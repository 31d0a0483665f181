"""Benchmarks of the engine: cold start, step round trip, batched throughput and validation, side by side
with the unisolated floor and Gymnasium's vector envs, in one run with one JSON report (``spade bench``)."""

from bench.config import SECTIONS, BenchConfig, UnknownSectionError
from bench.render import render_markdown, render_tables
from bench.run import run_bench
from bench.validation import measure_validation

__all__ = [
    "SECTIONS",
    "BenchConfig",
    "UnknownSectionError",
    "measure_validation",
    "render_markdown",
    "render_tables",
    "run_bench",
]
