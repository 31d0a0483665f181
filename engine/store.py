"""The content-addressed environment pool: programs by hash, their verdicts, metadata and lineage.

SQLite (the standard library's ``sqlite3``) in ``DIR/pool.sqlite``.  Only admitted programs are
served to training; rejected ones are kept with their verdicts as evidence (and as negatives).
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.spec import EnvSpec
from engine.validate import VALIDATOR_VERSION, Verdict
from sandbox.errors import SpadeError

SCHEMA = """
CREATE TABLE IF NOT EXISTS envs (
    sha256      TEXT PRIMARY KEY,
    source      TEXT NOT NULL,
    hint        TEXT,
    origin      TEXT NOT NULL,
    parent      TEXT,
    skills      TEXT NOT NULL DEFAULT '[]',
    created_at  REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS verdicts (
    sha256          TEXT PRIMARY KEY REFERENCES envs(sha256),
    admitted        INTEGER NOT NULL,
    failed_gate     TEXT,
    solvability     TEXT NOT NULL,
    verdict         TEXT NOT NULL,
    validator       INTEGER NOT NULL,
    validated_at    REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS verdicts_admitted ON verdicts(admitted);
CREATE INDEX IF NOT EXISTS envs_parent ON envs(parent);
"""


class PoolStoreError(SpadeError, LookupError):
    """A hash that the pool does not hold, or a pool folder that cannot be used."""


@dataclass(frozen=True)
class PoolEntry:
    spec: EnvSpec
    admitted: bool | None
    failed_gate: str | None
    solvability: str | None
    verdict: dict[str, Any] | None
    created_at: float

    @property
    def sha256(self) -> str:
        return self.spec.sha256

    def summary(self) -> dict[str, Any]:
        return {"sha256": self.sha256, "admitted": self.admitted, "failed_gate": self.failed_gate,
                "solvability": self.solvability, "origin": self.spec.origin, "parent": self.spec.parent,
                "skills": list(self.spec.skills), "hint": self.spec.hint}  # fmt: skip


class PoolStore:
    """Environments by SHA-256 with their verdicts; safe to open from several processes."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise PoolStoreError(f"cannot use {self.folder} as a pool folder: {exc.strerror}") from None
        self.path = self.folder / "pool.sqlite"
        self._db = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(SCHEMA)

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> PoolStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def put(self, spec: EnvSpec, verdict: Verdict | None = None) -> str:
        """Store a program (idempotent by hash) and, if given, its latest verdict."""
        with self._db:
            self._db.execute(
                "INSERT OR IGNORE INTO envs VALUES (?, ?, ?, ?, ?, ?, ?)",
                (spec.sha256, spec.source, spec.hint, spec.origin, spec.parent, json.dumps(list(spec.skills)), time.time()),
            )
            if verdict is not None:
                if verdict.sha256 != spec.sha256:
                    raise PoolStoreError(f"verdict is for {verdict.sha256[:12]}, not {spec.sha256[:12]}")
                self._db.execute(
                    "INSERT OR REPLACE INTO verdicts VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (spec.sha256, int(verdict.admitted), verdict.failed_gate, verdict.solvability,
                     json.dumps(verdict.to_dict()), VALIDATOR_VERSION, time.time()),
                )
        return spec.sha256

    def get(self, sha256: str) -> PoolEntry:
        """The entry whose hash is ``sha256`` or starts with it (unambiguously)."""
        rows = self._rows("WHERE e.sha256 LIKE ? ORDER BY e.sha256 LIMIT 2", (sha256.lower() + "%",))
        if not rows:
            raise PoolStoreError(f"no environment {sha256!r} in {self.path}")
        if len(rows) > 1:
            raise PoolStoreError(f"{sha256!r} matches more than one environment; give more characters")
        return rows[0]

    def entries(self, admitted: bool | None = None) -> list[PoolEntry]:
        if admitted is None:
            return self._rows("ORDER BY e.created_at, e.sha256", ())
        return self._rows("WHERE v.admitted = ? ORDER BY e.created_at, e.sha256", (int(admitted),))

    def admitted_specs(self) -> list[EnvSpec]:
        """What training may use."""
        return [entry.spec for entry in self.entries(admitted=True)]

    def children(self, sha256: str) -> list[PoolEntry]:
        return self._rows("WHERE e.parent = ? ORDER BY e.created_at", (sha256,))

    def __contains__(self, sha256: object) -> bool:
        return bool(self._db.execute("SELECT 1 FROM envs WHERE sha256 = ?", (sha256,)).fetchone())

    def __len__(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM envs").fetchone()[0])

    def export(self, target: str | Path, admitted_only: bool = True) -> list[Path]:
        """Write programs as ``<sha256>.py`` plus ``index.jsonl`` (summaries and verdicts)."""
        target = Path(target)
        target.mkdir(parents=True, exist_ok=True)
        written = []
        with open(target / "index.jsonl", "w", encoding="utf-8") as index:
            for entry in self.entries(admitted=True if admitted_only else None):
                path = target / f"{entry.sha256}.py"
                path.write_text(entry.spec.source, encoding="utf-8")
                written.append(path)
                index.write(json.dumps({**entry.summary(), "file": path.name, "verdict": entry.verdict}) + "\n")
        return written

    def _rows(self, where: str, params: tuple[Any, ...]) -> list[PoolEntry]:
        query = (
            "SELECT e.sha256, e.source, e.hint, e.origin, e.parent, e.skills, e.created_at, "
            "v.admitted, v.failed_gate, v.solvability, v.verdict FROM envs e LEFT JOIN verdicts v USING (sha256) " + where
        )
        return [self._entry(row) for row in self._db.execute(query, params)]

    @staticmethod
    def _entry(row: tuple[Any, ...]) -> PoolEntry:
        _sha, source, hint, origin, parent, skills, created, admitted, failed, solvability, verdict = row
        spec = EnvSpec(source=source, hint=hint, origin=origin, parent=parent, skills=tuple(json.loads(skills)))
        return PoolEntry(
            spec=spec,
            admitted=None if admitted is None else bool(admitted),
            failed_gate=failed,
            solvability=solvability,
            verdict=None if verdict is None else json.loads(verdict),
            created_at=created,
        )

    def iter_admitted(self) -> Iterator[EnvSpec]:
        yield from self.admitted_specs()
