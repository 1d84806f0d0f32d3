"""Nearest-neighbour search for the SQLite index: an HNSW graph file (usearch) beside the
SQLite file, plus the vectors written since it was saved, searched exactly.

Why usearch (docs/retrieval.md has the measurements): a 2.3 MB manylinux wheel for this
Python with no other dependency, keys can be removed (faiss's HNSW cannot), and a saved
index is *viewed* (memory-mapped): the first query after a start costs milliseconds, not the
second it took to read every vector from SQLite.

Layout and lifecycle:
- SQLite triggers write every change of a ``ready`` vector to ``vector_log`` (row id, added or
  removed), in the writer's own transaction: this process, ``agent-ls index`` or any other
  writer. ``vector_meta`` holds the index's ``epoch`` (random, new whenever the tables are
  created) and ``trimmed`` (log entries up to this sequence number were deleted).
- The graph is saved as ``<db>.vectors-<epoch>-<seq>.usearch``: it holds every vector up to log
  entry ``seq``. A search views the newest usable file, then applies the log after ``seq``:
  removed or replaced rows become tombstones (filtered out of the graph's answers), added
  rows go to an in-memory delta searched exactly with numpy.
- When the delta grows past ``DELTA_MAX`` (or there is no file and at least ``ANN_MIN``
  vectors), a background thread loads the graph, applies the delta, saves a new file
  (written aside, then renamed), swaps it in and trims the log. A missing, corrupt (does
  not load) or stale file (another epoch, or older than the trimmed log) is rebuilt from
  the blobs the same way; until then searches are exact over the blobs.
- The build runs on a niced thread (``background.nice_this_thread``: a search, a chat turn and
  the editor come first) and reports how far it is (``describe``: ``progress``, vectors added
  of those to add). A process that only searches once (``agent-ls search``) starts no build:
  it would leave it unfinished at exit (``builds`` False); `agent-ls index` hands it to a
  niced child process (``graph_process``: one build at a time per index, across processes,
  its progress visible to the others).
- A failed build is tried again after ``RETRY_AFTER`` seconds, doubled per failure (at most
  ``RETRY_MAX``); its reason stays in ``build_error`` until a build succeeds.
- Below ``ANN_MIN`` vectors there is no graph at all: exact search is as fast there.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from actions.index.background import nice_this_thread
from actions.index.graph_lock import build_lock, building_elsewhere, report_progress
from actions.private import PRIVATE_FILE

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

ANN_MIN = 10_000  # vectors: below, exact search (10k x 384 float32: ~1 ms) and no graph file
ANN_MIN_ENV = "AGENT_LS_ANN_MIN"  # another threshold (e.g. 0: always a graph)
DELTA_MAX = 4_096  # vectors outside the graph (plus tombstones) before it is rebuilt
EXPANSION = 128  # HNSW candidate list at search time (>= the fusion depth of 50)
BUILD_BATCH = 2_048  # vectors added per call while building (the stop flag is checked between)
BUILD_THREADS = min(2, os.cpu_count() or 1)
# The first vectors of a graph are added by one thread: inserted concurrently into a graph
# smaller than its connectivity, a node can end with no link leading to it (48 random vectors
# added by 2 threads: 24 of 2,000 graphs missed one of a query's 5 nearest; 0 of 2,000 with
# their first 16 added by one thread). 1,024 inserts of 384-d vectors: ~70 ms on one thread
# against ~50 ms on two, once per build (a graph is built from 10k vectors: seconds).
SEED_SIZE = 1_024
# HNSW shape: 16 links per node, 64 candidates while inserting (half usearch's default: the
# build of 100k vectors takes half as long; recall@10 measured in bench/retrieval.py).
CONNECTIVITY = 16
EXPANSION_ADD = 64
RETRY_AFTER = 60.0  # seconds before a failed build is tried again; doubled per failure
RETRY_MAX = 3_600.0
GRAPH_THREAD = "vector-index"
STALE_TMP = 3_600.0  # seconds: an older ``.tmp`` graph was left by a build that crashed

SCHEMA = """
CREATE TABLE IF NOT EXISTS vector_log (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, id INTEGER NOT NULL, ready INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS vector_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT OR IGNORE INTO vector_meta VALUES ('epoch', lower(hex(randomblob(8))));
INSERT OR IGNORE INTO vector_meta VALUES ('trimmed', '0');
CREATE TRIGGER IF NOT EXISTS vector_added AFTER INSERT ON chunks
WHEN new.embedding_status = 'ready' BEGIN
    INSERT INTO vector_log (id, ready) VALUES (new.id, 1);
END;
CREATE TRIGGER IF NOT EXISTS vector_removed AFTER DELETE ON chunks
WHEN old.embedding_status = 'ready' BEGIN
    INSERT INTO vector_log (id, ready) VALUES (old.id, 0);
END;
CREATE TRIGGER IF NOT EXISTS vector_changed AFTER UPDATE OF embedding_status, embedding ON chunks
WHEN old.embedding_status = 'ready' OR new.embedding_status = 'ready' BEGIN
    INSERT INTO vector_log (id, ready) VALUES (new.id, new.embedding_status = 'ready');
END;
"""
_READY = "SELECT count(*) FROM chunks WHERE embedding_status = 'ready' AND embedding IS NOT NULL"
DROP = "DROP TABLE IF EXISTS vector_log; DROP TABLE IF EXISTS vector_meta;"


class _State:
    """What one search sees: the graph (or None), its tombstones and the exact delta."""

    def __init__(self, epoch: str) -> None:
        import numpy as np

        self.epoch = epoch
        self.graph: Any = None  # a viewed usearch Index
        self.graph_path: Path | None = None
        self.graph_seq = 0
        self.seq = 0  # the last log entry applied
        self.tombstones: set[int] = set()
        self.ids: npt.NDArray[np.int64] = np.zeros(0, dtype=np.int64)
        self.matrix: npt.NDArray[np.float32] = np.zeros((0, 0), dtype=np.float32)

    def pending(self) -> int:
        return len(self.ids) + len(self.tombstones)


class VectorIndex:
    """The dense half of one SQLite index (``db``'s lock is held by every caller but the
    builder thread, which takes ``lock`` itself for the moments it touches shared state)."""

    def __init__(
        self,
        db_path: Path,
        lock: threading.Lock,
        ann_min: int | None = None,
        delta_max: int = DELTA_MAX,
        retry_after: float = RETRY_AFTER,
    ) -> None:
        self.db_path = db_path
        self._lock = lock
        self.ann_min = ann_min if ann_min is not None else configured_ann_min()
        self.delta_max = delta_max
        self._state: _State | None = None
        self._builder: threading.Thread | None = None
        self._stop = threading.Event()
        self._idle = threading.Event()
        self._idle.set()
        self.build_error = ""  # why the last build failed (the search stays exact)
        self.retry_after = retry_after
        self._failures = 0
        self._retry_at = 0.0  # monotonic time of the next try after a failed build
        self.builds = True  # False: never start a build (a one-shot search)
        self.progress = (0, 0)  # vectors added, vectors to add, by the running build
        self._below_graph: int | None = None  # vectors, when graph_due answered unloaded

    # ------------------------------------------------------------------ searching

    def nearest(
        self, db: sqlite3.Connection, vector: Sequence[float], k: int, floor: float = -1.0
    ) -> list[tuple[int, float]]:
        """``(row id, cosine similarity)`` of the ``k`` vectors nearest ``vector``, of at
        least ``floor``, best first."""
        import numpy as np

        state = self._sync(db)
        query = np.asarray(vector, dtype=np.float32)
        norm = float(np.linalg.norm(query))
        query = query / norm if norm else query
        found: list[tuple[float, int]] = []
        if state.graph is not None and len(state.graph) and state.graph.ndim == len(query):
            found += _graph_nearest(state, query, k)
        if state.matrix.shape[0] and state.matrix.shape[1] == query.shape[0]:
            scores = state.matrix @ query
            best = (
                np.argpartition(-scores, k)[:k] if k < scores.shape[0] else np.arange(len(scores))
            )
            found += [(float(scores[i]), int(state.ids[i])) for i in best]
        found.sort(key=lambda item: -item[0])
        return [(row_id, score) for score, row_id in found[:k] if score >= floor]

    def _sync(self, db: sqlite3.Connection) -> _State:
        """The state brought up to the last log entry (another process's writes included)."""
        epoch, trimmed = _meta(db)
        state = self._state
        if state is None or state.epoch != epoch or state.seq < trimmed:
            state = self._state = self._open(db, epoch, trimmed)
        rows = db.execute(
            "SELECT seq, id, ready FROM vector_log WHERE seq > ? ORDER BY seq", (state.seq,)
        ).fetchall()
        if rows:
            _apply(db, state, rows)
        if self._needs_build(state):
            self._start_build(state)
        elif state.graph is None and state.seq - trimmed > self.delta_max and self._idle.is_set():
            self._start_trim(state.seq)  # no graph: the log is needed by nobody
        return state

    def _open(self, db: sqlite3.Connection, epoch: str, trimmed: int) -> _State:
        """The newest usable graph file and the log after it; else every vector, exactly."""
        state = _State(epoch)
        (last,) = db.execute("SELECT coalesce(max(seq), 0) FROM vector_log").fetchone()
        for seq, path in self._files(epoch):
            if trimmed <= seq <= max(last, trimmed):
                graph = _view(path)
                if graph is not None:
                    state.graph, state.graph_path, state.graph_seq = graph, path, seq
                    state.seq = seq
                    return state
            _unlink(path)  # stale or corrupt: rebuilt from the blobs
        rows = db.execute(
            "SELECT id, embedding FROM chunks WHERE embedding_status = 'ready'"
            " AND embedding IS NOT NULL"
        ).fetchall()
        state.ids, state.matrix = _stack([row[0] for row in rows], [row[1] for row in rows])
        state.seq = max(last, trimmed)
        return state

    def _files(self, epoch: str) -> list[tuple[int, Path]]:
        """``(seq, path)`` of this index's graph files, newest first; other epochs' removed."""
        found = []
        prefix = f"{self.db_path.name}.vectors-"
        for path in self.db_path.parent.glob(f"{prefix}*.usearch"):
            stem = path.name[len(prefix) : -len(".usearch")]
            file_epoch, _, seq = stem.partition("-")
            if file_epoch == epoch and seq.isdigit():
                found.append((int(seq), path))
            elif not stem.endswith(".tmp"):
                _unlink(path)
        for path in self.db_path.parent.glob(f"{prefix}*.usearch.tmp"):
            with contextlib.suppress(OSError):  # a build that crashed while writing it
                if time.time() - path.stat().st_mtime > STALE_TMP:
                    _unlink(path)
        return sorted(found, reverse=True)

    # ------------------------------------------------------------------ building

    def _needs_build(self, state: _State) -> bool:
        if not self.builds or not self._idle.is_set() or self._stop.is_set():
            return False
        return self._due(state)

    def _due(self, state: _State) -> bool:
        """Whether ``state`` wants a graph (built): none yet for enough vectors, or too many
        vectors and tombstones outside it."""
        if self._failures and time.monotonic() < self._retry_at:
            return False
        if state.graph is None:
            wanted = len(state.ids) >= max(self.ann_min, 1)
        else:
            wanted = state.pending() > self.delta_max
        return wanted and _usearch()

    def _start_build(self, state: _State) -> None:
        self._idle.clear()
        snapshot = (state.epoch, state.graph_path, state.seq, state.ids, state.matrix)
        tombstones = frozenset(state.tombstones)
        self._builder = threading.Thread(
            target=self._build, args=(snapshot, tombstones), name=GRAPH_THREAD, daemon=True
        )
        self._builder.start()

    def _build(self, snapshot: tuple[Any, ...], tombstones: frozenset[int]) -> None:
        epoch, base, seq, ids, matrix = snapshot
        nice_this_thread()  # the searches meanwhile are exact, and come first
        self.progress = (0, len(ids))
        try:
            with build_lock(self.db_path, self._stop) as held:  # another process's first
                saved = None
                if held:
                    saved = self._saved(epoch, seq) or self._write(
                        base, tombstones, ids, matrix, (epoch, seq)
                    )
            if saved is not None:
                self._swap(epoch, saved[1], saved[0])
            self._failures, self.build_error = 0, ""
        except (OSError, ValueError, RuntimeError, sqlite3.Error) as error:
            delay = min(self.retry_after * 2**self._failures, RETRY_MAX)
            self._failures += 1
            self._retry_at = time.monotonic() + delay
            self.build_error = (
                f"{type(error).__name__}: {error} (failed {self._failures} time"
                f"{'s' if self._failures > 1 else ''}; tried again in {delay:.0f} s)"
            )
        finally:
            self._idle.set()

    def _saved(self, epoch: str, seq: int) -> tuple[Path, int] | None:
        """A graph file holding the log up to ``seq`` at least (saved by another process
        while this one waited for the lock)."""
        for file_seq, path in self._files(epoch):
            if file_seq >= seq and path.is_file():
                return path, file_seq
        return None

    def _write(
        self,
        base: Path | None,
        tombstones: frozenset[int],
        ids: Any,
        matrix: Any,
        version: tuple[str, int],
    ) -> tuple[Path, int] | None:
        """The graph of ``base`` with the tombstones removed and the delta added, saved as
        the file of ``version`` (epoch, log entry; None when stopped first)."""
        epoch, seq = version
        _usearch()  # onnxruntime first (see there)
        from usearch.index import Index

        graph: Any = Index.restore(str(base)) if base is not None else None
        if graph is not None:
            graph.expansion_add = EXPANSION_ADD
        if graph is None:
            graph = _new_graph(int(matrix.shape[1]))
        if tombstones:
            graph.remove(list(tombstones))
        if len(ids) and matrix.shape[1] != graph.ndim:  # another model: its vectors only
            graph = _new_graph(int(matrix.shape[1]))
        for start in range(0, len(ids), BUILD_BATCH):
            if self._stop.is_set():
                return None
            part = slice(start, start + BUILD_BATCH)
            _add(graph, ids[part], matrix[part])
            self.progress = (min(start + BUILD_BATCH, len(ids)), len(ids))
            report_progress(self.db_path, *self.progress)
        path = self.db_path.with_name(f"{self.db_path.name}.vectors-{epoch}-{seq}.usearch")
        aside = path.with_name(path.name + ".tmp")
        graph.save(str(aside))
        os.chmod(aside, PRIVATE_FILE)  # usearch creates it 0644: the vectors are private too
        os.replace(aside, path)
        return path, seq

    def _start_trim(self, seq: int) -> None:
        """Trim the log up to ``seq`` in the background (another process that is behind
        it reads every vector again: below ``ann_min``, a few milliseconds)."""
        self._idle.clear()

        def trim() -> None:
            try:
                self._trim(seq)
            except sqlite3.Error as error:
                self.build_error = f"{type(error).__name__}: {error}"
            finally:
                self._idle.set()

        self._builder = threading.Thread(target=trim, name="vector-log", daemon=True)
        self._builder.start()

    def _trim(self, seq: int) -> None:
        with contextlib.closing(sqlite3.connect(self.db_path, timeout=30)) as db, db:
            db.execute("DELETE FROM vector_log WHERE seq <= ?", (seq,))
            db.execute(
                "UPDATE vector_meta SET value = CAST(max(CAST(value AS INTEGER), ?) AS TEXT)"
                " WHERE key = 'trimmed'",
                (seq,),
            )

    def _swap(self, epoch: str, seq: int, path: Path) -> None:
        """Search the new file from now on; trim the log it holds; drop older files."""
        graph = _view(path)
        if graph is None:
            raise ValueError(f"{path} did not load after saving")
        with self._lock:
            state = self._state
            if state is None or state.epoch != epoch or self._stop.is_set():
                return
            fresh = _State(epoch)
            fresh.graph, fresh.graph_path, fresh.graph_seq, fresh.seq = graph, path, seq, seq
            self._state = fresh  # the next search applies the log after ``seq``
        self._trim(seq)
        for other_seq, other in self._files(epoch):
            if other_seq < seq:
                _unlink(other)  # a reader that still maps it keeps its pages (POSIX)

    def wait(self, db: sqlite3.Connection | None = None, timeout: float | None = None) -> bool:
        """Wait until no build runs (``db``: first sync, which may start one; the caller
        must not hold the lock then). True when idle."""
        if db is not None:
            with self._lock:
                self._sync(db)
        return self._idle.wait(timeout)

    def graph_due(self, db: sqlite3.Connection) -> bool:
        """Bring the state up to date (starting no build when ``builds`` is False) and say
        whether a graph build is due (the caller holds the lock). Without a graph file and
        with fewer vectors than a graph is built for, nothing is due: said without loading
        the vectors (nor numpy: `agent-ls index --no-embed`)."""
        if self._state is None:
            epoch, _ = _meta(db)
            if not self._files(epoch):
                (ready,) = db.execute(_READY).fetchone()
                if ready < max(self.ann_min, 1):
                    self._below_graph = int(ready)
                    return False
        return self._due(self._sync(db))

    def describe(self) -> dict[str, object]:
        state = self._state
        if state is None and self._below_graph is None:
            return {"kind": "not loaded"}
        builder = self._builder  # a graph build, not a trim of the log
        building = not self._idle.is_set() and builder is not None and builder.name == GRAPH_THREAD
        progress = self.progress
        elsewhere = None if building else building_elsewhere(self.db_path)
        if elsewhere is not None:  # another process builds it (`agent-ls index`'s child)
            building, progress = True, elsewhere
        if state is None:  # what the state would be: every vector searched exactly
            return _exact(self._below_graph or 0, building, progress, self.build_error)
        return {
            "kind": "hnsw" if state.graph is not None else "exact",
            "graph": len(state.graph) if state.graph is not None else 0,
            "delta": len(state.ids),
            "tombstones": len(state.tombstones),
            "file": str(state.graph_path or ""),
            "building": building,
            "pending": not building and self._due(state),
            "progress": {"added": progress[0], "total": progress[1]} if building else {},
            "error": self.build_error,
        }

    def close(self) -> None:
        self._stop.set()
        builder = self._builder
        if builder is not None:
            builder.join()


def _exact(
    vectors: int, building: bool, progress: tuple[int, int], error: str
) -> dict[str, object]:
    """``describe`` of an index below a graph, its vectors not loaded (``graph_due``)."""
    return {
        "kind": "exact",
        "graph": 0,
        "delta": vectors,
        "tombstones": 0,
        "file": "",
        "building": building,
        "pending": False,
        "progress": {"added": progress[0], "total": progress[1]} if building else {},
        "error": error,
    }


def configured_ann_min() -> int:
    """``ANN_MIN``, or the number in ``AGENT_LS_ANN_MIN``."""
    value = os.environ.get(ANN_MIN_ENV, "").strip()
    return int(value) if value.isdigit() else ANN_MIN


def _new_graph(dimension: int) -> Any:
    _usearch()  # onnxruntime first (see there)
    from usearch.index import Index

    return Index(
        ndim=dimension,
        metric="cos",
        dtype="f16",  # half the file and memory of f32; similarities within ~1e-3
        connectivity=CONNECTIVITY,
        expansion_add=EXPANSION_ADD,
        expansion_search=EXPANSION,
    )


def _add(graph: Any, ids: Any, matrix: Any) -> None:
    """Add the vectors to the graph, by one thread until it holds ``SEED_SIZE``."""
    seed = max(0, min(len(ids), SEED_SIZE - len(graph)))
    if seed:
        graph.add(ids[:seed], matrix[:seed], threads=1)
    if seed < len(ids):
        graph.add(ids[seed:], matrix[seed:], threads=BUILD_THREADS)


def _graph_nearest(state: _State, query: Any, k: int) -> list[tuple[float, int]]:
    """``(similarity, row id)`` of the graph's ``k`` nearest that are not tombstones: asked
    for a few more than ``k``, then four times as many while tombstones hid too many."""
    size = len(state.graph)
    count = min(size, k + min(len(state.tombstones), k))
    while True:
        matches = state.graph.search(query, count, threads=1)
        found = [
            (1.0 - float(distance), int(key))
            for key, distance in zip(matches.keys, matches.distances, strict=True)
            if int(key) not in state.tombstones
        ]
        if len(found) >= k or count >= size or len(matches.keys) < count:
            return found[:k]
        count = min(size, count * 4)


def _meta(db: sqlite3.Connection) -> tuple[str, int]:
    found = dict(db.execute("SELECT key, value FROM vector_meta").fetchall())
    return str(found.get("epoch", "")), int(found.get("trimmed", 0))


def _apply(db: sqlite3.Connection, state: _State, rows: list[tuple[int, int, int]]) -> None:
    """Log entries on the state: the last entry of a row id decides."""
    import numpy as np

    last = {row_id: ready for _, row_id, ready in rows}
    state.seq = rows[-1][0]
    state.tombstones.update(last)  # removed, or replaced by a vector in the delta
    if state.graph is None:
        state.tombstones.clear()
    if len(state.ids):
        keep = ~np.isin(state.ids, np.fromiter(last, dtype=np.int64))
        state.ids, state.matrix = state.ids[keep], state.matrix[keep]
    added = [row_id for row_id, ready in last.items() if ready]
    blobs: list[tuple[int, bytes]] = []
    for start in range(0, len(added), 500):
        part = added[start : start + 500]
        blobs += db.execute(
            f"SELECT id, embedding FROM chunks WHERE id IN ({','.join('?' * len(part))})"
            " AND embedding_status = 'ready' AND embedding IS NOT NULL",
            part,
        ).fetchall()
    if not blobs:
        return
    more_ids, more = _stack([row[0] for row in blobs], [row[1] for row in blobs])
    if state.matrix.shape[0] and more.shape[1] == state.matrix.shape[1]:
        state.ids = np.concatenate([state.ids, more_ids])
        state.matrix = np.vstack([state.matrix, more])
    elif more.shape[0] >= state.matrix.shape[0]:  # the first vectors, or mostly another model's
        state.ids, state.matrix = more_ids, more


def _stack(ids: list[int], blobs: list[bytes]) -> tuple[Any, Any]:
    """``(ids, unit-length matrix)`` of the blobs of the most common size (rows of another
    size, left by an earlier model, are skipped)."""
    import numpy as np

    if not blobs:
        return np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.float32)
    sizes: dict[int, int] = {}
    for blob in blobs:
        sizes[len(blob)] = sizes.get(len(blob), 0) + 1
    size = max(sizes, key=lambda s: sizes[s])
    keep = [i for i, blob in enumerate(blobs) if len(blob) == size]
    matrix = np.frombuffer(b"".join(blobs[i] for i in keep), dtype=np.float32)
    matrix = matrix.reshape(len(keep), size // 4)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)  # the model's are 1 already
    unit = (matrix / np.where(norms > 0, norms, 1.0)).astype(np.float32, copy=False)
    return np.asarray([ids[i] for i in keep], dtype=np.int64), unit


def _usearch() -> bool:
    """Whether usearch is installed (it comes with the ``embeddings`` extra). onnxruntime is
    imported first when installed: importing it after usearch (2.26, numkong 7.8) crashes the
    process with a segmentation fault; in this order both work."""
    import importlib.util

    if importlib.util.find_spec("usearch") is None:
        return False
    if importlib.util.find_spec("onnxruntime") is not None:
        import onnxruntime  # noqa: F401
    return True


def _view(path: Path) -> Any:
    """The graph file memory-mapped, or None when it does not load (corrupt, truncated)."""
    if not _usearch():
        return None
    from usearch.index import Index

    try:
        graph: Any = Index.restore(str(path), view=True)
    except (ValueError, RuntimeError, OSError):
        return None
    if graph is None:
        return None
    graph.expansion_search = EXPANSION
    return graph


def _unlink(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.unlink()
