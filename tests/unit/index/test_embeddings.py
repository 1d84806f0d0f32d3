"""The embedder of the `embeddings` extra (the real MiniLM int8 model) and its batching."""

from __future__ import annotations

import os

import pytest
from hypothesis import given
from hypothesis import strategies as st

from actions.index.embeddings import (
    BATCH,
    DIMENSION,
    ENABLE_ENV,
    MIN_SIMILARITY,
    PADDING,
    _batches,
    dense_status,
    fuse,
    load_embedder,
)

needs_model = pytest.mark.skipif(
    not dense_status().enabled, reason="needs the embeddings extra (part of the test extra)"
)


@needs_model
def test_vectors_are_unit_length_the_same_in_any_batch_and_mean_something() -> None:
    embedder = load_embedder()
    assert embedder is not None
    texts = [
        "How do I rotate the TLS certificates?",
        "renewing https certs before they expire",
        "Bake the bread at 220 degrees for forty minutes.",
        "x",
        "a much longer text " * 80,  # past the token limit: truncated, not an error
        "",
    ]
    together = embedder.embed(texts)
    assert together.shape == (len(texts), DIMENSION)
    for row, text in enumerate(texts):
        (alone,) = embedder.embed([text])
        assert abs(float(alone @ alone) - 1.0) < 1e-4
        assert float(abs(alone - together[row]).max()) < 1e-5  # batching changes nothing
    similar = float(together[0] @ together[1])
    unrelated = float(together[0] @ together[2])
    assert similar > MIN_SIMILARITY > unrelated
    assert os.environ["HF_HUB_OFFLINE"] == "1"  # nothing may be fetched by any HF library


def test_the_off_switch_says_how_to_turn_dense_search_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENABLE_ENV, "0")
    status = dense_status()
    assert (status.enabled, status.reason) == (False, "turned off by AGENT_LS_EMBEDDINGS=0")
    assert status.hint == "unset AGENT_LS_EMBEDDINGS"
    assert load_embedder() is None


@given(st.lists(st.integers(min_value=1, max_value=128), max_size=200))
def test_batches_take_every_text_once_with_little_padding(lengths: list[int]) -> None:
    batches = _batches(lengths)
    assert sorted(i for batch in batches for i in batch) == list(range(len(lengths)))
    for batch in batches:
        sizes = [lengths[i] for i in batch]
        assert len(batch) <= BATCH
        assert len(batch) == 1 or max(sizes) * len(batch) <= (1 + PADDING) * sum(sizes)


def test_fusion_keeps_how_sure_each_ranking_is() -> None:
    # BM25 is sure of "a" (c scores a tenth of it); the vectors barely separate b from d
    lexical = [("a", 10.0), ("b", 2.0), ("c", 1.0)]
    dense = [("b", 0.61), ("d", 0.60), ("a", 0.59)]
    fused = fuse([lexical, dense], k=4)
    assert [key for key, _ in fused] == ["b", "a", "d", "c"]
    assert fused[0][1] == pytest.approx((1 / 9 + 1.0) / 2)
    assert fused[1][1] == pytest.approx(0.5)
    # reciprocal rank fusion would rank d (dense 2nd) above c and tie a with b; here a BM25
    # hit far ahead of the rest stays ahead of a chunk only the vectors found
    sure = fuse([[("a", 10.0), ("c", 1.0)], [("d", 0.7), ("a", 0.3)]], k=3)
    assert [key for key, _ in sure] == ["a", "d", "c"]


def test_fusion_of_equal_scores_prefers_what_more_rankings_found() -> None:
    fused = fuse([[("a", 1.0), ("b", 0.0)], [("b", 0.9), ("c", 0.8)]], k=3)
    assert [key for key, _ in fused] == ["b", "a", "c"]  # a and b both 0.5: b is in both
    assert fuse([[], []], k=3) == []
    assert fuse([[("x", 3.0)]], k=3) == [("x", 1.0)]  # one candidate: the best there is
