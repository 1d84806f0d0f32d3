"""The postings of the PostgreSQL index: one row per word of a chunk (workspace number,
word, chunk id, the word's column-weighted frequency in the chunk, the chunk's length), under
a B-tree on (workspace, word, chunk) holding every column, so a query reads only the
postings of its own words (index-only scans), never a whole chunk's words.

The words are ``terms``', as the SQLite store indexes them (an identifier by its parts and
its whole word; version 1 split at ``_`` first, as PostgreSQL's parser did for the former
``tsvector``); frequencies weight the ``head`` (path + heading path) and ``small``
(summary, or the prose itself) columns 1, ``body`` (the original table / long code) 0.5, as
FTS5's ``bm25()`` weights the SQLite store's columns. They are written with the chunks, in
the same transaction (one ``COPY`` per document), and derived again from the stored chunks
when ``TERMS_VERSION`` or ``POSTINGS_VERSION`` changes (an index of the former ``tsvector``
form gets them on open).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from actions.index.pg_embeddings import SCHEMA
from actions.index.terms import TERMS_VERSION, terms

POSTINGS_VERSION = "2"  # the postings' form: re-derived from the stored chunks when it changes
# (2: identifiers' whole words, as SQLite indexes them; 1: split at `_`)
COLUMN_WEIGHTS = (1.0, 1.0, 0.5)  # head, small, body: FTS5's (sqlite_store.WEIGHTS)
MAX_WORD_BYTES = 2047  # longer words are not indexed (as a tsvector did)

POSTINGS_DDL = f"""
DROP INDEX IF EXISTS {SCHEMA}.chunks_tsv;
ALTER TABLE {SCHEMA}.chunks DROP COLUMN IF EXISTS tsv;
CREATE TABLE IF NOT EXISTS {SCHEMA}.workspaces (id SERIAL PRIMARY KEY, key TEXT NOT NULL UNIQUE);
CREATE TABLE IF NOT EXISTS {SCHEMA}.postings (
    chunk BIGINT NOT NULL, workspace INTEGER NOT NULL, length INTEGER NOT NULL,
    tf REAL NOT NULL, word TEXT NOT NULL
);
"""
POSTINGS_INDEXES = f"""
CREATE INDEX IF NOT EXISTS postings_word ON {SCHEMA}.postings (workspace, word, chunk)
    INCLUDE (tf, length);
CREATE INDEX IF NOT EXISTS postings_chunk ON {SCHEMA}.postings (chunk);
"""
COPY_POSTINGS = f"COPY {SCHEMA}.postings (chunk, workspace, length, tf, word) FROM STDIN"
DELETE_POSTINGS = (
    f"DELETE FROM {SCHEMA}.postings WHERE chunk IN (SELECT id FROM {SCHEMA}.chunks"
    " WHERE workspace = %s AND document = %s)"
)


def columns_of(indexed_text: str, content: str, summary: str) -> tuple[list[str], ...]:
    """The words of a chunk's head (path, heading path), small text and body columns."""
    path, _, rest = indexed_text.partition("\n")
    headings, _, small = rest.partition("\n")
    body = content if summary else ""
    return words_of(f"{path} {headings}"), words_of(small), words_of(body)


def workspace_number(conn: Any, workspace: str) -> int:
    """The number standing for ``workspace`` in the postings (given on first use)."""
    conn.execute(
        f"INSERT INTO {SCHEMA}.workspaces (key) VALUES (%s) ON CONFLICT DO NOTHING", (workspace,)
    )
    row = conn.execute(f"SELECT id FROM {SCHEMA}.workspaces WHERE key = %s", (workspace,))
    return int(row.fetchone()[0])


def retokenize(conn: Any) -> None:
    """Every chunk's postings (and length) again from its stored text when ``TERMS_VERSION``
    or ``POSTINGS_VERSION`` changed (no file is read, vectors are kept; an index written
    before the postings existed gets them here); then the versions are recorded. In the
    caller's transaction, under the schema lock."""
    stored = dict(conn.execute(f"SELECT key, value FROM {SCHEMA}.meta").fetchall())
    terms_changed = stored.get("terms_version") != str(TERMS_VERSION)
    if not terms_changed and stored.get("postings_version") == POSTINGS_VERSION:
        return
    conn.execute(
        f"INSERT INTO {SCHEMA}.workspaces (key) SELECT DISTINCT workspace FROM {SCHEMA}.chunks"
        " ON CONFLICT DO NOTHING"
    )
    conn.execute(f"TRUNCATE {SCHEMA}.postings")  # then written without its indexes (faster)
    conn.execute(f"DROP INDEX {SCHEMA}.postings_word, {SCHEMA}.postings_chunk")
    with conn.cursor(name="agent_ls_retokenize") as rows, conn.cursor() as cur:
        rows.execute(  # server side, a batch at a time: any index size
            f"SELECT c.id, w.id, c.indexed_text, c.content, c.summary FROM {SCHEMA}.chunks c"
            f" JOIN {SCHEMA}.workspaces w ON w.key = c.workspace"
        )
        while batch := rows.fetchmany(1000):
            columns = [(int(row[0]), columns_of(*row[2:])) for row in batch]
            for workspace in {row[1] for row in batch}:
                mine = {row[0] for row in batch if row[1] == workspace}
                write_postings(cur, workspace, [c for c in columns if c[0] in mine])
            if terms_changed:
                cur.executemany(
                    f"UPDATE {SCHEMA}.chunks SET length = %s WHERE id = %s",
                    [(sum(map(len, words)), row_id) for row_id, words in columns],
                )
    conn.execute(POSTINGS_INDEXES)
    conn.execute(
        f"INSERT INTO {SCHEMA}.meta VALUES ('terms_version', %s), ('postings_version', %s)"
        " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        (str(TERMS_VERSION), POSTINGS_VERSION),
    )


def write_postings(
    cur: Any, workspace: int, chunks: Iterable[tuple[int, tuple[list[str], ...]]]
) -> None:
    """The postings of ``chunks`` (id, words of each column): one row per word of a chunk,
    its frequency weighted by column (``COLUMN_WEIGHTS``), with the chunk's length."""
    with cur.copy(COPY_POSTINGS) as copy:
        for chunk, columns in chunks:
            length = sum(map(len, columns))
            frequencies: dict[str, float] = {}
            for words, weight in zip(columns, COLUMN_WEIGHTS, strict=True):
                for word in words:
                    frequencies[word] = frequencies.get(word, 0.0) + weight
            for word, frequency in frequencies.items():
                if len(word.encode()) <= MAX_WORD_BYTES:
                    copy.write_row((chunk, workspace, length, frequency, word))


def words_of(text: str) -> list[str]:
    """``terms``, as the SQLite store indexes them (an identifier by its parts and whole:
    ``join_options`` is ``join``, ``options`` and ``joinoptions``). Postings version 1 split
    at ``_`` first, as PostgreSQL's parser did for the former ``tsvector``, so a snake_case
    name lost its whole word on PostgreSQL only and click's questions ranked lower there
    (MRR 0.781 against SQLite's 0.841, issue 27 round 5)."""
    return terms(text)
