"""The default model's cache: converted once, atomically, reused; a failed conversion leaves nothing.

The conversion itself is replaced by a stand-in here (the real one takes about a minute and is
exercised by test_default_model.py); what is tested is the staging, marker and reuse logic around it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from policies import ModelUnavailableError, models


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SPADE_CACHE", str(tmp_path))
    return tmp_path / "models"


def test_conversion_runs_once_and_is_renamed_into_place(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[Path] = []

    def convert(gguf: Path, out_dir: Path) -> None:
        assert ".staging-" in out_dir.name and out_dir.parent == cache
        assert not (cache / models.DEFAULT_MODEL_NAME).exists()  # nothing visible until complete
        (out_dir / "config.json").write_text("{}")
        calls.append(out_dir)

    monkeypatch.setattr(models, "_convert_gguf", convert)
    folder = models.default_model_dir()
    assert folder == cache / models.DEFAULT_MODEL_NAME
    assert (folder / "config.json").is_file() and (folder / models.MARKER).is_file()
    assert models.default_model_dir() == folder
    assert len(calls) == 1
    assert [p.name for p in cache.iterdir() if ".staging-" in p.name] == []


def test_a_failed_conversion_leaves_no_folder(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def convert(gguf: Path, out_dir: Path) -> None:
        (out_dir / "model.safetensors").write_bytes(b"half")
        raise RuntimeError("disk full")

    monkeypatch.setattr(models, "_convert_gguf", convert)
    with pytest.raises(RuntimeError, match="disk full"):
        models.default_model_dir()
    assert sorted(p.name for p in cache.iterdir() if not p.name.endswith(".lock")) == []


def test_a_folder_without_marker_is_converted_again(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stale = cache / models.DEFAULT_MODEL_NAME
    stale.mkdir(parents=True)
    (stale / "config.json").write_text("stale")
    monkeypatch.setattr(models, "_convert_gguf", lambda gguf, out: (out / "config.json").write_text("{}"))
    assert (models.default_model_dir() / "config.json").read_text() == "{}"


def test_only_local_folders_are_models(tmp_path: Path) -> None:
    with pytest.raises(ModelUnavailableError, match="local folders only"):
        models.resolve_model_path(tmp_path / "absent")
    assert models.resolve_model_path(tmp_path) == tmp_path
