"""Regenerate the README's Performance tables from a saved report.

    spade bench --json > bench/results/full.json
    python -m bench.readme bench/results/full.json

Replaces what lies between the ``<!-- bench:begin -->`` and ``<!-- bench:end -->`` markers in README.md
with ``spade bench --markdown``'s rendering of the report; the prose around the markers is kept.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from bench.render import render_markdown

README = Path(__file__).resolve().parents[1] / "README.md"
BEGIN, END = "<!-- bench:begin -->", "<!-- bench:end -->"


def replace_section(text: str, tables: str) -> str:
    """``text`` with the part between the markers replaced by ``tables``."""
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        raise ValueError(f"README has no {BEGIN} ... {END} markers")
    return text[: start + len(BEGIN)] + "\n" + tables + text[end:]


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    report = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    README.write_text(replace_section(README.read_text(encoding="utf-8"), render_markdown(report)), encoding="utf-8")
    print(f"updated {README}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
