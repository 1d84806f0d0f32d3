"""The words of the PostgreSQL index's chunks: a ``words`` table (per workspace, each word's
number and the count of chunks holding it, kept by the writes; a word in no chunk any more is
deleted, its number never given again) and one ``chunk_words`` row
per chunk — its word numbers, sorted, and their column-weighted frequencies in two parallel
arrays, and its length — under a GIN index on the word numbers. A query takes its candidates
from the GIN index and finds a word's frequency in a candidate's row by binary search
(``width_bucket`` over the sorted numbers); the document frequencies are read from ``words``.

The former layout (version 1) kept a row per word of a chunk with the word's text, under a
covering B-tree: 2.5 GB for 120k chunks, against about 85 MB for the ``tsvector`` + GIN before
it; this one is a fraction of that (docs/retrieval.md: "PostgreSQL: word numbers and a GIN
index"). Rows are what cost: a PostgreSQL row carries about 28 bytes of header and pointer,
so one per chunk, not per word of a chunk.

The words are ``terms``', as the SQLite store indexes them (an identifier by its parts and
its whole word; version 1 split at ``_`` first, as PostgreSQL's parser did for the former
``tsvector``); frequencies weight the ``head`` (path + heading path) and ``small``
(summary, or the prose itself) columns 1, ``body`` (the original table / long code) 0.5, as
FTS5's ``bm25()`` weights the SQLite store's columns. They are written with the chunks, in
the same transaction, and derived again from the stored chunks when ``TERMS_VERSION`` or
``POSTINGS_VERSION`` changes (an index of a former layout gets them on open).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from actions.index.pg_schema import SCHEMA
from actions.index.terms import COLUMN_WEIGHTS, TERMS_VERSION, terms

POSTINGS_VERSION = "3"  # re-derived from the stored chunks when it changes: 3, word numbers +
# a row of arrays per chunk; 2, a row per posting with identifiers' whole words; 1, split at `_`
MAX_WORD_BYTES = 2047  # longer words are not indexed (as a tsvector did)

POSTINGS_DDL = f"""
DROP INDEX IF EXISTS {SCHEMA}.chunks_tsv;
ALTER TABLE {SCHEMA}.chunks DROP COLUMN IF EXISTS tsv;
CREATE TABLE IF NOT EXISTS {SCHEMA}.workspaces (id SERIAL PRIMARY KEY, key TEXT NOT NULL UNIQUE);
CREATE TABLE IF NOT EXISTS {SCHEMA}.words (
    id SERIAL PRIMARY KEY, workspace INTEGER NOT NULL, word TEXT NOT NULL,
    chunks INTEGER NOT NULL, UNIQUE (workspace, word)
);
CREATE TABLE IF NOT EXISTS {SCHEMA}.chunk_words (
    chunk BIGINT PRIMARY KEY, workspace INTEGER NOT NULL, length INTEGER NOT NULL,
    words INTEGER[] NOT NULL, tfs REAL[] NOT NULL
);
"""
POSTINGS_INDEXES = f"""
CREATE INDEX IF NOT EXISTS chunk_words_words ON {SCHEMA}.chunk_words USING gin (words);
CREATE INDEX IF NOT EXISTS chunk_words_order ON {SCHEMA}.chunk_words (workspace, chunk);
"""
COPY_ROWS = f"COPY {SCHEMA}.chunk_words (chunk, workspace, length, words, tfs) FROM STDIN"
DELETE_ROWS = (
    f"DELETE FROM {SCHEMA}.chunk_words WHERE chunk IN (SELECT id FROM {SCHEMA}.chunks"
    " WHERE workspace = %s AND document = %s) RETURNING words"
)


def columns_of(indexed_text: str, content: str, summary: str) -> tuple[list[str], ...]:
    """The words of a chunk's head (path, heading path), small text and body columns."""
    path, _, rest = indexed_text.partition("\n")
    headings, _, small = rest.partition("\n")
    body = content if summary else ""
    return words_of(f"{path} {headings}"), words_of(small), words_of(body)


def workspace_number(conn: Any, workspace: str) -> int:
    """The number standing for ``workspace`` in ``words`` and ``chunk_words``."""
    conn.execute(
        f"INSERT INTO {SCHEMA}.workspaces (key) VALUES (%s) ON CONFLICT DO NOTHING", (workspace,)
    )
    row = conn.execute(f"SELECT id FROM {SCHEMA}.workspaces WHERE key = %s", (workspace,))
    return int(row.fetchone()[0])


def retokenize(conn: Any) -> None:
    """Every chunk's words (and length) again from its stored text when ``TERMS_VERSION``
    or ``POSTINGS_VERSION`` changed (no file is read, vectors are kept; an index of a former
    layout gets them here, its tables dropped); then the versions are recorded. In the
    caller's transaction, under the schema lock."""
    stored = dict(conn.execute(f"SELECT key, value FROM {SCHEMA}.meta").fetchall())
    terms_changed = stored.get("terms_version") != str(TERMS_VERSION)
    if not terms_changed and stored.get("postings_version") == POSTINGS_VERSION:
        return
    conn.execute(f"DROP TABLE IF EXISTS {SCHEMA}.postings")  # version 1
    conn.execute(
        f"INSERT INTO {SCHEMA}.workspaces (key) SELECT DISTINCT workspace FROM {SCHEMA}.chunks"
        " ON CONFLICT DO NOTHING"
    )
    conn.execute(f"TRUNCATE {SCHEMA}.chunk_words, {SCHEMA}.words RESTART IDENTITY")
    conn.execute(f"DROP INDEX {SCHEMA}.chunk_words_words, {SCHEMA}.chunk_words_order")
    with conn.cursor(name="agent_ls_retokenize") as rows, conn.cursor() as cur:
        rows.execute(  # server side, a batch at a time: any index size
            f"SELECT c.id, w.id, c.indexed_text, c.content, c.summary FROM {SCHEMA}.chunks c"
            f" JOIN {SCHEMA}.workspaces w ON w.key = c.workspace"
        )
        counts: Counter[int] = Counter()  # written once at the end: a row updated per
        while batch := rows.fetchmany(1000):  # batch would stay in the table until committed
            columns = [(int(row[0]), columns_of(*row[2:])) for row in batch]
            for workspace in {row[1] for row in batch}:
                mine = {row[0] for row in batch if row[1] == workspace}
                write_words(cur, workspace, [c for c in columns if c[0] in mine], [], counts)
            if terms_changed:
                cur.executemany(
                    f"UPDATE {SCHEMA}.chunks SET length = %s WHERE id = %s",
                    [(sum(map(len, words)), row_id) for row_id, words in columns],
                )
        _count(cur, counts)
    conn.execute(POSTINGS_INDEXES)
    conn.execute(
        f"INSERT INTO {SCHEMA}.meta VALUES ('terms_version', %s), ('postings_version', %s)"
        " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        (str(TERMS_VERSION), POSTINGS_VERSION),
    )


def frequencies_of(columns: tuple[list[str], ...]) -> dict[str, float]:
    """Each indexed word of a chunk and its frequency weighted by column (``COLUMN_WEIGHTS``)."""
    frequencies: dict[str, float] = {}
    for words, weight in zip(columns, COLUMN_WEIGHTS, strict=True):
        for word in words:
            frequencies[word] = frequencies.get(word, 0.0) + weight
    return {w: f for w, f in frequencies.items() if len(w.encode()) <= MAX_WORD_BYTES}


def write_words(
    cur: Any,
    workspace: int,
    chunks: Iterable[tuple[int, tuple[list[str], ...]]],
    removed: Iterable[list[int]],
    counts: Counter[int] | None = None,
) -> None:
    """The rows of ``chunks`` (id, words of each column) and the chunk counts of ``words``:
    +1 for each word of a new chunk, -1 for each of ``removed`` (the word numbers of the
    chunks deleted), or added to ``counts`` when given. One writer of a workspace at a time
    (a transaction lock): the counts of its words are rows every writer of it updates."""
    written = [(chunk, columns, frequencies_of(columns)) for chunk, columns in chunks]
    added = Counter(word for _, _, found in written for word in found)
    cur.execute("SELECT pg_advisory_xact_lock(hashtext('agent_ls words'), %s)", (workspace,))
    numbers = dict(
        cur.execute(
            f"SELECT word, id FROM {SCHEMA}.words WHERE workspace = %s AND word = ANY(%s)",
            (workspace, list(added)),
        ).fetchall()
    )
    if new := [word for word in added if word not in numbers]:
        numbers.update(
            cur.execute(
                f"INSERT INTO {SCHEMA}.words (workspace, word, chunks) SELECT %s, w, 0"
                " FROM unnest(%s::text[]) AS w RETURNING word, id",
                (workspace, new),
            ).fetchall()
        )
    change = Counter({numbers[word]: count for word, count in added.items()})
    change.subtract(Counter(number for words in removed for number in words))
    if counts is None:
        _count(cur, change)
    else:
        counts.update(change)
    with cur.copy(COPY_ROWS) as copy:
        for chunk, columns, found in written:
            ranked = sorted((numbers[word], frequency) for word, frequency in found.items())
            copy.write(  # text rows: the arrays as literals (faster than the per-value dumpers)
                f"{chunk}\t{workspace}\t{sum(map(len, columns))}"
                f"\t{{{','.join(str(number) for number, _ in ranked)}}}"
                f"\t{{{','.join(str(frequency) for _, frequency in ranked)}}}\n"
            )


def _count(cur: Any, change: Counter[int]) -> None:
    """``change`` added to the chunk counts of the words (by number); a word in no chunk any
    more is deleted (a vocabulary that churns would grow its ``words`` without bound). Its
    number is never given again (``SERIAL``): a word written again gets a new one, and a
    reader holding the old one finds it gone (``PgSearch._live``)."""
    ids = sorted(number for number, delta in change.items() if delta)
    if ids:  # the arrays cast once (not per row); each row's change by binary search
        cur.execute(
            f"WITH d AS MATERIALIZED (SELECT %s::int[] AS ids, %s::int[] AS n) UPDATE"
            f" {SCHEMA}.words SET chunks = chunks + d.n[width_bucket(id, d.ids)] FROM d"
            " WHERE id = ANY(d.ids)",
            (ids, [change[number] for number in ids]),
        )
    if fallen := [number for number in ids if change[number] < 0]:  # by id: this workspace's
        cur.execute(
            f"DELETE FROM {SCHEMA}.words WHERE id = ANY(%s::int[]) AND chunks <= 0", (fallen,)
        )


def prune(conn: Any) -> None:
    """The words in no chunk deleted, once: the writes before ``words_pruned`` kept them at a
    count of 0. In the caller's transaction, under the schema lock."""
    if conn.execute(f"SELECT 1 FROM {SCHEMA}.meta WHERE key = 'words_pruned'").fetchone():
        return
    conn.execute(f"DELETE FROM {SCHEMA}.words WHERE chunks <= 0")
    conn.execute(f"INSERT INTO {SCHEMA}.meta VALUES ('words_pruned', '1')")


def words_of(text: str) -> list[str]:
    """``terms``, as the SQLite store indexes them (an identifier by its parts and whole:
    ``join_options`` is ``join``, ``options`` and ``joinoptions``). Postings version 1 split
    at ``_`` first, as PostgreSQL's parser did for the former ``tsvector``, so a snake_case
    name lost its whole word on PostgreSQL only and click's questions ranked lower there
    (MRR 0.781 against SQLite's 0.841, issue 27 round 5)."""
    return terms(text)
