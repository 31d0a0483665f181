"""Environment specs: a program with its hint and metadata, identified by its normalised source."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from sandbox.errors import SpadeError

MAX_SOURCE_BYTES = 256 * 1024


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
        return cls(source=normalise_source(source), **meta)  # type: ignore[arg-type]

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
