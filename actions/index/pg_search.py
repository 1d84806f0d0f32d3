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
from typing import Any

from actions.index.embeddings import MIN_SIMILARITY, distinct, hybrid
from actions.index.model import Chunk, Hit
from actions.index.pg_embeddings import PgEmbeddings
from actions.index.pg_postings import columns_of
from actions.index.pg_schema import SCHEMA
from actions.index.stop_words import STOP_DEPTH, Candidate, Corpus, rescored, stop_terms
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

    def _weighted(self, cur: Any, words: list[str]) -> tuple[QueryPlan, list[float]]:
        """How ``words`` are ranked and the inverse document frequencies of its scored words."""
        self._count(cur, words)
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

    def _with_stop_words(self, cur: Any, lexical: list[Any], stops: list[str]) -> list[Any]:
        """``lexical``'s rows re-ranked with the query's stop words at a small weight
        (``stop_words.rescored``, as the SQLite store does), each ending with its new score."""
        self._count(cur, stops)
        corpus = Corpus(self._total or 0, float(self._average), dict(self._frequencies))
        candidates = [
            Candidate(
                number,
                float(row[-1]),
                tuple(map(" ".join, columns_of(str(row[4]), str(row[3]), str(row[5]))))
                if number < STOP_DEPTH
                else (),
            )
            for number, row in enumerate(lexical)
        ]
        return [(*lexical[key][:-1], score) for key, score in rescored(candidates, stops, corpus)]

    def search(self, query: str, k: int, *, vector: Sequence[float] | None = None) -> list[Hit]:
        words = query_terms(query)  # as SQLite: an identifier by its parts and whole
        if k <= 0 or (not words and vector is None):
            return []
        depth = max(k, FUSION_DEPTH)  # copies of a passage count once: read beyond k
        with self._cursor("search failed") as cur:
            plan, idf = self._weighted(cur, words) if words else (plan_query([], {}), [])
            lexical = self._lexical(cur, plan, idf, depth) if plan.scored else []
            stops = stop_terms(query)
            if stops and lexical:
                lexical = self._with_stop_words(cur, lexical, stops)
            if vector is None:
                ranked = [(row, float(row[-1])) for row in lexical]
                return [
                    Hit(_chunk(row[:-1]), score)
                    for row, score in distinct(ranked, k, passage=lambda row: row[3])
                ]
            nearest = self._nearest(cur, vector, depth, _CHUNK_COLUMNS)
            dense = [row for row in nearest if row[-1] >= MIN_SIMILARITY]
        return _fuse([lexical, dense], k)

    def _lexical(self, cur: Any, plan: QueryPlan, idf: list[float], k: int) -> list[Any]:
        """Chunks by BM25 as SQLite FTS5 computes it: per word, IDF x the column-weighted
        term frequency (A 1, B 1, C 0.5) saturated by ``BM25_K1`` and length-normalised;
        every word of ``plan.scored`` scored, the chunks holding one of ``plan.matched``
        ranked. The candidates' rows from the GIN index on their word numbers, each scored
        word's frequency in a row by binary search of its sorted numbers (``width_bucket``),
        summed in the order of ``plan.scored``."""
        matched = [self._numbers[word] for word in plan.matched]
        picked = "words && %(matched)s::int[]"  # the GIN index: at most MATCH_BUDGET rows
        if plan.capped:  # common words: the lowest ids holding one, in id order (not GIN)
            picked = " OR ".join(f"words[width_bucket({n:d}, words)] = {n:d}" for n in matched)
            picked = f"({picked}) ORDER BY chunk LIMIT {CAPPED_ROWS:d}"
            for plan_kind in ("seqscan", "bitmapscan"):  # it cannot tell how common: it would
                cur.execute(f"SET LOCAL enable_{plan_kind} = off")  # read every row, then sort
        rows: list[Any] = cur.execute(
            f"SELECT {_CHUNK_COLUMNS}, best.score FROM (SELECT p.chunk, sum(p.idf * p.tf"
            " * (%(k1)s + 1) / (p.tf + %(k1)s * (1 - %(b)s + %(b)s * p.length / %(avg)s))"
            " ORDER BY p.n) AS score FROM (SELECT t.chunk, t.length, q.idf, q.n, t.tfs[x.i]"
            " AS tf FROM (SELECT chunk, length, words, tfs"
            f" FROM {SCHEMA}.chunk_words WHERE workspace = %(ws)s"
            f" AND {picked}) AS t"
            " CROSS JOIN unnest(%(words)s::int[], %(idf)s::float8[])"
            " WITH ORDINALITY AS q(word, idf, n) CROSS JOIN LATERAL (SELECT"
            " width_bucket(q.word, t.words) AS i) AS x WHERE t.words[x.i] = q.word OFFSET 0)"
            " AS p GROUP BY p.chunk ORDER BY score DESC, p.chunk LIMIT %(k)s"
            f") AS best JOIN {SCHEMA}.chunks c ON c.id = best.chunk ORDER BY best.score DESC, c.id",
            {
                "k1": BM25_K1,
                "b": BM25_B,
                "avg": max(float(self._average), 1.0),
                "words": [self._numbers[word] for word in plan.scored],
                "idf": idf,
                "ws": self._workspace_id,
                "matched": matched,
                "k": k,
            },
        ).fetchall()
        if plan.capped:  # the nearest neighbours' query after it plans as usual
            cur.execute("SET LOCAL enable_seqscan = on; SET LOCAL enable_bitmapscan = on")
        return rows


def _fuse(rankings: list[list[Any]], k: int) -> list[Hit]:
    """``embeddings.hybrid`` of the lexical and the dense ranking of chunk rows ending with
    their score (identified by document, position; a passage by its content)."""
    rows = {(row[0], row[1]): row for ranking in rankings for row in reversed(ranking)}
    scored = [[((row[0], row[1]), float(row[-1])) for row in ranking] for ranking in rankings]
    fused = hybrid(scored[0], scored[1], k, passage=lambda key: rows[key][3])
    return [Hit(_chunk(rows[key][:-1]), score) for key, score in fused]


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
