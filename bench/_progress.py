"""Progress reporting as a callback, so that library code never prints."""

from __future__ import annotations

from collections.abc import Callable

ProgressHook = Callable[[str, int, int], None]
"""Called as ``hook(label, done, total)`` when a unit of work begins (and once more at the end)."""


def no_progress(label: str, done: int, total: int) -> None:
    """The default hook: say nothing."""
