"""Environment specs: a program with its hint and metadata, identified by its normalised source."""

from __future__ import annotations

import ast
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

from sandbox.errors import SpadeError

MAX_SOURCE_BYTES = 256 * 1024
FENCE = re.compile(r"```[ \t]*(?P<lang>[\w+-]*)[^\n]*\n(?P<body>.*?)(?:```|\Z)", re.DOTALL)
HINT_LINE = re.compile(r"^\s*(?:\*\*)?hint\s*[:=]\s*(?:\*\*)?\s*(?P<hint>.+?)\s*$", re.IGNORECASE | re.MULTILINE)
ENV_CLASS = re.compile(r"^class\s+\w*Env\b", re.MULTILINE)


class SpecError(SpadeError, ValueError):
    """The input is not a usable environment program (the message says why)."""


def normalise_source(source: str) -> str:
    """Line endings to \\n, trailing whitespace stripped, one final newline: the hashed form."""
    lines = source.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return "\n".join(line.rstrip() for line in lines).strip("\n") + "\n"


def source_sha256(source: str) -> str:
    return hashlib.sha256(normalise_source(source).encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class EnvSpec:
    """An environment program, its privileged hint, and where it came from."""

    source: str
    hint: str | None = None
    origin: str = "user"
    parent: str | None = None
    skills: tuple[str, ...] = field(default_factory=tuple)

    @property
    def sha256(self) -> str:
        return source_sha256(self.source)

    @classmethod
    def from_source(cls, source: str, **meta: object) -> EnvSpec:
        if not isinstance(source, str):
            raise SpecError(f"source must be a str, got {type(source).__name__}")
        if not source.strip():
            raise SpecError("the program is empty")
        if len(source.encode("utf-8", "surrogatepass")) > MAX_SOURCE_BYTES:
            raise SpecError(f"the program is larger than {MAX_SOURCE_BYTES} bytes")
        if meta.get("hint") is None:
            meta["hint"] = _hint_in_source(source)
        return cls(source=normalise_source(source), **meta)  # type: ignore[arg-type]

    @classmethod
    def from_answer(cls, answer: str, **meta: object) -> EnvSpec:
        """Parse a model's raw answer: a fenced code block holding the program, and a hint.

        The program is the last fenced block that defines a class ending in ``Env`` (a model often
        shows a draft first).  The hint is the program's ``HINT`` string, or else a ``Hint: ...`` line
        outside the code.  Whether the program is valid is the validator's business, not this parser's.
        """
        if not isinstance(answer, str):
            raise SpecError(f"the answer must be a str, got {type(answer).__name__}")
        blocks = [m.group("body") for m in FENCE.finditer(answer) if m.group("lang").lower() in ("", "python", "py", "python3")]
        if not blocks:
            raise SpecError("the answer holds no fenced code block (```python ... ```)")
        programs = [block for block in blocks if ENV_CLASS.search(block)]
        if not programs:
            raise SpecError("no code block in the answer defines a class whose name ends in 'Env'")
        source = programs[-1]
        hint = _hint_in_source(source)
        if hint is None:
            outside = FENCE.sub("", answer)
            found = HINT_LINE.search(outside)
            hint = found.group("hint").strip().strip('"').strip() if found else None
        meta.setdefault("origin", "model")
        meta.setdefault("hint", hint or None)
        return cls.from_source(source, **meta)

    @classmethod
    def from_file(cls, path: str | Path, **meta: object) -> EnvSpec:
        path = Path(path)
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise SpecError(f"cannot read {path}: {exc.strerror}") from None
        if len(data) > MAX_SOURCE_BYTES:
            raise SpecError(f"{path} is larger than {MAX_SOURCE_BYTES} bytes")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise SpecError(f"{path} is not UTF-8 (byte {exc.start})") from None
        meta.setdefault("origin", f"file:{path.name}")
        return cls.from_source(text, **meta)


def _hint_in_source(source: str) -> str | None:
    """The module-level ``HINT = "..."`` string, if the program parses and has one."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and any(isinstance(target, ast.Name) and target.id == "HINT" for target in node.targets)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            return node.value.value
    return None
