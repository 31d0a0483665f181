"""Corpus grounding: passages that seed each design prompt with a topic (breadth).

By default the passages are the Python standard library's own docstrings, read from its source files
with ``ast`` (nothing is imported), so every machine has a corpus.  Users point at text, JSONL
(``{"text": ...}`` per line) or Parquet files, or folders of them.
"""

from __future__ import annotations

import ast
import json
import random
import sysconfig
from collections.abc import Iterable, Sequence
from pathlib import Path

from sandbox.errors import SpadeError

MIN_CHARS = 200
MAX_CHARS = 1200
SKIP_STDLIB = {"test", "idlelib", "tkinter", "turtledemo", "ensurepip", "lib2to3", "site-packages", "__pycache__"}


class CorpusError(SpadeError, ValueError):
    """A corpus path that cannot be read, or a corpus with no usable passage."""


def _chunks(text: str) -> Iterable[str]:
    """Paragraph-aligned passages of MIN_CHARS..MAX_CHARS characters."""
    current: list[str] = []
    size = 0
    for paragraph in (p.strip() for p in text.split("\n\n")):
        if not paragraph:
            continue
        if size + len(paragraph) > MAX_CHARS and size >= MIN_CHARS:
            yield "\n\n".join(current)
            current, size = [], 0
        current.append(paragraph[:MAX_CHARS])
        size += len(paragraph)
    if size >= MIN_CHARS:
        yield "\n\n".join(current)


def stdlib_passages() -> list[str]:
    """Docstrings of the standard library's modules, classes and functions, as passages."""
    root = Path(sysconfig.get_paths()["stdlib"])
    passages: list[str] = []
    for path in sorted(root.rglob("*.py")):
        if SKIP_STDLIB & set(path.relative_to(root).parts):
            continue
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                doc = ast.get_docstring(node)
                if doc and len(doc) >= MIN_CHARS:
                    title = f"{path.stem}" if isinstance(node, ast.Module) else f"{path.stem}.{node.name}"
                    passages.extend(f"[{title}]\n{chunk}" for chunk in _chunks(doc))
    return passages


def _read(path: Path) -> list[str]:
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        out = []
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise CorpusError(f"{path}:{number}: not JSON ({exc.msg})") from None
            text = record.get("text") if isinstance(record, dict) else None
            if not isinstance(text, str):
                raise CorpusError(f"{path}:{number}: each line needs a string field 'text'")
            out.extend(_chunks(text))
        return out
    if suffix == ".parquet":
        try:
            import pyarrow.parquet as pq
        except ImportError:
            raise CorpusError(f"{path}: reading Parquet needs pyarrow (pip install pyarrow)") from None
        table = pq.read_table(path, columns=["text"])
        return [chunk for text in table.column("text").to_pylist() if isinstance(text, str) for chunk in _chunks(text)]
    return list(_chunks(path.read_text(encoding="utf-8", errors="replace")))


class Corpus:
    """Passages and seeded, reproducible sampling."""

    def __init__(self, passages: Sequence[str], name: str = "custom") -> None:
        if not passages:
            raise CorpusError(f"corpus {name!r} holds no passage of at least {MIN_CHARS} characters")
        self.passages = list(passages)
        self.name = name

    @classmethod
    def stdlib(cls) -> Corpus:
        return cls(stdlib_passages(), name="python-stdlib-docstrings")

    @classmethod
    def from_paths(cls, paths: Sequence[str | Path]) -> Corpus:
        files: list[Path] = []
        for raw in paths:
            path = Path(raw)
            if path.is_dir():
                files.extend(sorted(p for p in path.rglob("*") if p.suffix.lower() in (".txt", ".md", ".rst", ".jsonl", ".parquet")))
            elif path.is_file():
                files.append(path)
            else:
                raise CorpusError(f"corpus path {path} does not exist")
        passages = [passage for file in files for passage in _read(file)]
        return cls(passages, name=",".join(str(p) for p in paths))

    def sample(self, count: int, seed: int) -> list[str]:
        """``count`` passages drawn with ``random.Random(seed)``: the same seed, the same passages."""
        rng = random.Random(seed)
        return [self.passages[rng.randrange(len(self.passages))] for _ in range(count)]

    def __len__(self) -> int:
        return len(self.passages)
