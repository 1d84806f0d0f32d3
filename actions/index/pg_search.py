"""The searches of ``PgStore``: BM25 over the chunks' word numbers (``pg_postings``), the stop
words' re-rank, copies of a passage listed once, and the hybrid ranking with the nearest
neighbours of a query's vector (``embeddings.hybrid``).

Lexical ranking is the SQLite store's: the text is reduced to the same words by ``terms()``
and kept per chunk as sorted word numbers with their column-weighted frequencies, under a GIN
index; each word's chunk count is kept in ``words`` by the writes. A query takes the chunks
holding one of the words ``terms.plan_query`` matches with from the GIN index, finds each
scored word's frequency in their rows by binary search, and sums BM25 as FTS5 does (k1 1.2,
b 0.75), every content word of the query scored (docs/retrieval.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from actions.index.embeddings import MIN_SIMILARITY, distinct, hybrid
from actions.index.model import Chunk, Hit
from actions.index.pg_embeddings import PgEmbeddings
from actions.index.pg_schema import SCHEMA
from actions.index.stop_words import STOP_DEPTH, Corpus, reranked, stop_terms, weighing
from actions.index.terms import (
    BM25_B,
    BM25_K1,
    CAPPED_ROWS,
    EXACT_STATS_BELOW,
    FUSION_DEPTH,
    QueryPlan,
    bm25_idf,
    plan_query,
    query_terms,
)

STATS_TTL = 500  # document frequencies are re-read after this many document writes
_CHUNK_COLUMNS = (
    "c.document, c.position, c.type, c.content, c.indexed_text, c.summary, c.is_atomic, "
    "c.headings, c.start_line, c.end_line, c.language, c.embedding_status, c.start_page,"
    " c.end_page"
)


class PgSearch(PgEmbeddings):
    """Mixed into ``PgStore`` (which gives ``_cursor``, ``workspace`` and its number,
    ``_workspace_id``); keeps the corpus statistics of the words asked for."""

    _workspace_id: int
    _writes: int  # document writes since the statistics were read
    _frequencies: dict[str, int]  # chunk count of the words asked for, cached
    _numbers: dict[str, int]  # each word's number in ``words``
    _total: int | None  # chunks of the workspace
    _average: float  # mean chunk length in words (BM25's avgdl)

    def chunks_of(self, path: str) -> list[Chunk]:
        with self._cursor(f"reading the chunks of {path} failed") as cur:
            rows = cur.execute(
                f"SELECT {_CHUNK_COLUMNS} FROM {SCHEMA}.chunks c"
                " WHERE c.workspace = %s AND c.document = %s ORDER BY c.position",
                (self.workspace, path),
            ).fetchall()
        return [_chunk(row) for row in rows]

    def _weighted(self, words: list[str]) -> tuple[QueryPlan, list[float]]:
        """How ``words`` are ranked and the inverse document frequencies of its scored words
        (their chunk counts read: ``_count``)."""
        plan = plan_query(words, self._frequencies)
        total, found = self._total or 0, self._frequencies
        idf = [bm25_idf(total, found[word]) for word in plan.scored]
        return plan, idf

    def _count(self, cur: Any, words: list[str]) -> None:
        """Read the chunk frequencies of ``words`` (a word cached as found in no chunk is
        counted again: it may have been written since)."""
        if self._writes >= STATS_TTL or self._total is None:
            self._frequencies.clear()
            self._numbers.clear()
            self._writes = 0
            self._total, self._average = cur.execute(
                f"SELECT count(*), coalesce(avg(length), 1) FROM {SCHEMA}.chunks"
                " WHERE workspace = %s",
                (self.workspace,),
            ).fetchone()
        unknown = [word for word in words if not self._frequencies.get(word)]
        if unknown:  # counted by the writes
            counted = cur.execute(
                f"SELECT word, id, chunks FROM {SCHEMA}.words WHERE workspace = %s"
                " AND word = ANY(%s)",
                (self._workspace_id, unknown),
            ).fetchall()
            self._frequencies.update(dict.fromkeys(unknown, 0))
            for word, number, frequency in counted:
                self._frequencies[word], self._numbers[word] = int(frequency), int(number)
        if (self._total or 0) < EXACT_STATS_BELOW:
            self._writes = STATS_TTL  # a small index: exact statistics are cheap

    def _stop_weights(self, stops: list[str]) -> dict[str, float]:
        """The idf of each of the query's stop words that weighs (``stop_words.weighing``);
        their chunk counts read with the query's other words (``_count``)."""
        corpus = Corpus(self._total or 0, float(self._average), self._frequencies)
        return {word: idf for word, idf in weighing(stops, corpus).items() if word in self._numbers}

    def search(self, query: str, k: int, *, vector: Sequence[float] | None = None) -> list[Hit]:
        words = query_terms(query)  # as SQLite: an identifier by its parts and whole
        if k <= 0 or (not words and vector is None):
            return []
        depth = max(k, FUSION_DEPTH)  # copies of a passage count once: ranked beyond k
        # rows read: the first k (the first STOP_DEPTH when stop words may reorder them),
        # every candidate for a hybrid search (their text tells copies apart)
        reading = _Reading(depth, depth if vector is not None else k, {})
        with self._cursor("search failed") as cur:
            lexical, rows = self._ranked(cur, words, stop_terms(query), reading)
            if vector is None:
                return self._distinct(cur, lexical, k, rows)
            nearest = self._nearest(cur, vector, depth, f"c.id, {_CHUNK_COLUMNS}")
            dense = [(int(row[0]), float(row[-1])) for row in nearest if row[-1] >= MIN_SIMILARITY]
        rows.update((row[0], row[1:-1]) for row in nearest if row[0] not in rows)
        fused = hybrid(lexical, dense, k, passage=lambda key: rows[key][_CONTENT])
        return [Hit(_chunk(rows[key]), score) for key, score in fused]

    def _ranked(
        self, cur: Any, words: list[str], stops: list[str], reading: _Reading
    ) -> tuple[list[tuple[int, float]], dict[int, Any]]:
        """BM25's ``reading.depth`` best ``(id, score)``, re-ranked by the query's stop words
        (``stop_words.reranked``), and the chunk rows read with them (by id). Asked again
        once when a word number it used is gone (``_live``)."""
        for _ in range(2):
            self._count(cur, [*words, *stops])
            plan, idf = self._weighted(words) if words else (plan_query([], {}), [])
            weights = self._stop_weights(stops) if plan.scored else {}
            read = max(reading.rows, STOP_DEPTH) if weights else reading.rows
            found = self._lexical(cur, plan, idf, _Reading(reading.depth, read, weights))
            if self._live(cur, found, [*plan.scored, *weights]):
                break
        rows = {row[0]: row[2:16] for row in found if row[2] is not None}
        lexical = [(int(row[0]), float(row[1])) for row in found]
        if weights:
            counted = [  # the first STOP_DEPTH: their lengths, stop words' frequencies
                (int(row[16]), dict(zip(weights, row[17], strict=True)))
                for row in found[:STOP_DEPTH]
            ]
            lexical = reranked(lexical, counted, weights, float(self._average))
        return lexical, rows

    def _live(self, cur: Any, found: list[Any], words: list[str]) -> bool:
        """Whether the numbers the query used for ``words`` still stand for them: a word in
        no chunk is deleted by the writes (``pg_postings``), and gets a new number when
        written again (by another process, or this one since the numbers were cached).
        The words whose number is gone are forgotten (read again at the next ``_count``)."""
        numbers = {self._numbers[word] for word in words}
        if not numbers:
            return True
        if found:  # the query returned the live ones
            live = set(found[0][18] or ())
        else:
            rows = cur.execute(
                f"SELECT id FROM {SCHEMA}.words WHERE id = ANY(%s::int[])", (sorted(numbers),)
            )
            live = {int(number) for (number,) in rows}
        gone = numbers - live
        for word in [word for word, number in self._numbers.items() if number in gone]:
            del self._numbers[word]
            self._frequencies.pop(word, None)
        return not gone

    def _distinct(
        self, cur: Any, lexical: list[tuple[int, float]], k: int, rows: dict[int, Any]
    ) -> list[Hit]:
        """BM25's ``k`` best with copies of a passage once (``embeddings.distinct``), from the
        rows of the first ``k`` candidates, and of the others only when copies among them
        leave fewer than ``k`` passages (as the SQLite store does)."""
        for read in (k, len(lexical)):
            wanted = [key for key, _ in lexical[:read] if key not in rows]
            if wanted:  # a chunk deleted since is missing
                rows.update(
                    (row[0], row[1:])
                    for row in cur.execute(
                        f"SELECT c.id, {_CHUNK_COLUMNS} FROM {SCHEMA}.chunks c"
                        " WHERE c.id = ANY(%s)",
                        (wanted,),
                    )
                )
            found = [(rows[key], score) for key, score in lexical[:read] if key in rows]
            best = distinct(found, k, passage=lambda row: row[_CONTENT])
            if len(best) >= k or read >= len(lexical):
                break
        return [Hit(_chunk(row), score) for row, score in best]

    def _lexical(self, cur: Any, plan: QueryPlan, idf: list[float], reading: _Reading) -> list[Any]:
        """Chunks by BM25 as SQLite FTS5 computes it: per word, IDF x the column-weighted
        term frequency (A 1, B 1, C 0.5) saturated by ``BM25_K1`` and length-normalised;
        every word of ``plan.scored`` scored, the chunks holding one of ``plan.matched``
        ranked. The candidates' rows from the GIN index on their word numbers, each scored
        word's frequency in a row by binary search of its sorted numbers (``width_bucket``),
        summed in the order of ``plan.scored``. Each of the ``reading.depth`` best: its id,
        score, chunk columns (the first ``reading.rows``; else NULLs), and for the first
        ``STOP_DEPTH`` when ``reading.stops``, its length and each stop word's frequency."""
        if not plan.scored:
            return []
        matched = [self._numbers[word] for word in plan.matched]
        picked = "words && %(matched)s::int[]"  # the GIN index: at most MATCH_BUDGET rows
        if plan.capped:  # common words: the lowest ids holding one, in id order (not GIN)
            picked = " OR ".join(f"words[width_bucket({n:d}, words)] = {n:d}" for n in matched)
            picked = f"({picked}) ORDER BY chunk LIMIT {CAPPED_ROWS:d}"
            for plan_kind in ("seqscan", "bitmapscan"):  # it cannot tell how common: it would
                cur.execute(f"SET LOCAL enable_{plan_kind} = off")  # read every row, then sort
        rows: list[Any] = cur.execute(
            f"SELECT best.chunk, best.score, {_CHUNK_COLUMNS}, s.length, s.tfs, live.ids FROM"
            " (SELECT"
            " x.chunk, x.score, row_number() OVER (ORDER BY x.score DESC, x.chunk) AS r FROM"
            " (SELECT p.chunk, sum(p.idf * p.tf * (%(k1)s + 1) / (p.tf + %(k1)s * (1 - %(b)s"
            " + %(b)s * p.length / %(avg)s)) ORDER BY p.n) AS score"
            " FROM (SELECT t.chunk, t.length, q.idf, q.n, t.tfs[x.i]"
            " AS tf FROM (SELECT chunk, length, words, tfs"
            f" FROM {SCHEMA}.chunk_words WHERE workspace = %(ws)s"
            f" AND {picked}) AS t"
            " CROSS JOIN unnest(%(words)s::int[], %(idf)s::float8[])"
            " WITH ORDINALITY AS q(word, idf, n) CROSS JOIN LATERAL (SELECT"
            " width_bucket(q.word, t.words) AS i) AS x WHERE t.words[x.i] = q.word OFFSET 0)"
            " AS p GROUP BY p.chunk ORDER BY score DESC, p.chunk LIMIT %(k)s) AS x) AS best"
            f" LEFT JOIN LATERAL (SELECT {_CHUNK_COLUMNS} FROM {SCHEMA}.chunks c"
            " WHERE c.id = best.chunk AND best.r <= %(read)s OFFSET 0) AS c ON true"
            f"{_STOPS if reading.stops else _NO_STOPS}, (SELECT array_agg(id) AS ids FROM"
            f" {SCHEMA}.words WHERE id = ANY(%(numbers)s::int[])) AS live"
            " ORDER BY best.score DESC, best.chunk",
            {
                "k1": BM25_K1,
                "b": BM25_B,
                "avg": max(float(self._average), 1.0),
                "words": [self._numbers[word] for word in plan.scored],
                "idf": idf,
                "ws": self._workspace_id,
                "matched": matched,
                "k": reading.depth,
                "read": reading.rows,
                "stops": [self._numbers[word] for word in reading.stops],
                "stopped": STOP_DEPTH,
                "numbers": sorted({self._numbers[word] for word in [*plan.scored, *reading.stops]}),
            },
        ).fetchall()
        if plan.capped:  # the nearest neighbours' query after it plans as usual
            cur.execute("SET LOCAL enable_seqscan = on; SET LOCAL enable_bitmapscan = on")
        return rows


@dataclass(frozen=True)
class _Reading:
    """What a lexical query returns: its ``depth`` best, the chunk rows of the first
    ``rows``, and the frequencies of ``stops`` (their idf, by word) in the first
    ``STOP_DEPTH``."""

    depth: int
    rows: int
    stops: dict[str, float]


_CONTENT = 3  # the position of c.content in _CHUNK_COLUMNS
# each lateral subquery is kept apart (OFFSET 0) so that its condition on the candidate's
# rank is checked once per candidate, before any row is read (flattened, the rows of every
# candidate were read, then filtered)
_STOPS = (  # the first STOP_DEPTH candidates' lengths and frequencies of the stop words
    " LEFT JOIN LATERAL (SELECT w.length, ARRAY(SELECT CASE WHEN"
    " w.words[width_bucket(u.n, w.words)] = u.n THEN w.tfs[width_bucket(u.n, w.words)]"
    " ELSE 0 END FROM unnest(%(stops)s::int[]) WITH ORDINALITY AS u(n, o) ORDER BY"
    f" u.o) AS tfs FROM {SCHEMA}.chunk_words w WHERE w.chunk = best.chunk"
    " AND best.r <= %(stopped)s OFFSET 0) AS s ON true"
)
_NO_STOPS = " CROSS JOIN (SELECT NULL::int AS length, NULL::real[] AS tfs) AS s"


def _chunk(row: Sequence[Any]) -> Chunk:
    (document, position, kind, content, indexed, summary, atomic, headings, start, end) = row[:10]
    language, embedding_status, start_page, end_page = row[10:14]
    return Chunk(
        document=str(document),
        position=int(position),
        type=kind,
        content=str(content),
        indexed_text=str(indexed),
        summary=str(summary),
        is_atomic=bool(atomic),
        headings=tuple(headings),
        start_line=int(start),
        end_line=int(end),
        language=str(language),
        start_page=int(start_page),
        end_page=int(end_page),
        embedding_status=embedding_status,
    )
