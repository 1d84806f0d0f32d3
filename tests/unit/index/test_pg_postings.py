"""The PostgreSQL index ranks from its chunks' word numbers (issue #27, PostgreSQL latency and
space): the same answers as the embedded index, an index of a former layout (a ``tsvector``,
then a row per posting) gets the current one on open, and a replaced or removed document
leaves no words nor word counts behind (they would still count in the document frequencies
of every later query)."""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path

import psycopg

from actions.index.pg_store import PgStore
from actions.index.store import workspace_key
from actions.index.terms import query_terms, terms
from tests.unit.index.test_cli_identifiers import agent_ls
from tests.unit.index.test_store import chunk, ready

TOPICS = {
    "retries.md": "# Retries\n\nA failed upload is retried three times with a growing delay.\n",
    "cache.md": "# Cache\n\nThe cache keeps uploaded files for a day; a retry reads the cache.\n",
    "auth.md": "# Tokens\n\nAn expired token fails every upload until the client logs in.\n",
    "limits.md": "# Limits\n\nUploads above the size limit fail at once and are never retried.\n",
    "config.md": "# Configuration\n\nThe retry delay and the cache size are set in config.\n",
    "logs.md": "# Logs\n\nEach failed upload writes one line to the log, with its delay.\n",
}
QUESTIONS = ("why did my upload fail", "retry delay", "cache size configuration", "token")


def _ranked(workspace: Path, env: dict[str, str]) -> dict[str, list[tuple[str, int]]]:
    found = {}
    for question in QUESTIONS:
        result = agent_ls(
            "search", "--workspace", str(workspace), "--k", "6", "--json", "--", question, **env
        )
        assert result.returncode == 0, result.stderr
        found[question] = [(hit["path"], hit["startLine"]) for hit in json.loads(result.stdout)]
    return found


def _workspace(root: Path) -> Path:
    root.mkdir()
    for name, text in TOPICS.items():
        (root / name).write_text(text, encoding="utf-8")
    return root


CORPUS = [  # (path, headings, prose or summary, table body)
    ("guide/uploads.md", ("Uploads", "Retries"), "A failed upload is retried with a delay.", ""),
    ("guide/cache.md", ("Cache",), "The cache keeps uploads; a retry reads the cache.", ""),
    ("guide/limits.md", ("Limits",), "Size limits per upload", "| upload | limit |\n| 10 MB |"),
    ("ref/config_file.md", ("Config",), "retry_delay and cache_size are set in config.", ""),
    ("ref/errors.md", ("Errors", "Upload"), "Each failed upload writes a line with a delay.", ""),
]


def _bm25(question: str) -> list[tuple[str, float]]:
    """Plain BM25 by hand over ``CORPUS``: the rule the store documents (k1 1.2, b 0.75, the
    head and the text x1, a table's body x0.5, FTS5's idf
    max(ln((N - n + 0.5) / (n + 0.5)), 1e-6)))."""
    words = [  # as both stores index them: identifiers by their parts and whole
        [terms(f"{path} {' > '.join(headings)}"), terms(small), terms(body)]
        for path, headings, small, body in CORPUS
    ]
    lengths = [sum(map(len, columns)) for columns in words]
    average = sum(lengths) / len(lengths)
    scores = [0.0] * len(CORPUS)
    for word in query_terms(question):
        tf = [c[0].count(word) + c[1].count(word) + 0.5 * c[2].count(word) for c in words]
        n = sum(1 for value in tf if value)
        if not n:
            continue
        idf = max(math.log((len(CORPUS) - n + 0.5) / (n + 0.5)), 1e-6)  # the store's idf rule
        for i, value in enumerate(tf):
            norm = 1.2 * (1 - 0.75 + 0.75 * lengths[i] / average)
            scores[i] += idf * value * 2.2 / (value + norm) if value else 0.0
    ranked = sorted(range(len(CORPUS)), key=lambda i: -scores[i])  # stable: ties by order
    return [(CORPUS[i][0], scores[i]) for i in ranked if scores[i] > 0]


def test_the_postgresql_index_scores_plain_bm25(tmp_path: Path, pg_url: str) -> None:
    """Every hit, its rank and its score (to 1e-9) as BM25 computed by hand from the chunks'
    words: the postings hold each word's column-weighted frequency and the chunk's length."""
    store = PgStore(pg_url, workspace_key(tmp_path))
    try:
        for path, headings, small, body in CORPUS:
            if body:
                written = chunk(path, 0, body, summary=small, headings=headings, type="table")
            else:
                written = chunk(path, 0, small, headings=headings)
            store.replace_chunks(ready(path, 1), [written])
        for question in ("retry delay", "upload limit", "cache_size config", "failed upload"):
            expected = _bm25(question)
            hits = store.search(question, 10)
            assert [hit.chunk.document for hit in hits] == [path for path, _ in expected]
            for hit, (_, score) in zip(hits, expected, strict=True):
                assert abs(hit.score - score) < 1e-9
    finally:
        store.close()


def test_an_index_written_before_the_postings_answers_the_same(tmp_path: Path, pg_url: str) -> None:
    """The former form (words in a GIN-indexed ``tsvector``, no postings) is upgraded when
    the index is opened: postings derived from the stored chunks, the column dropped."""
    workspace = _workspace(tmp_path / "ws")
    env = {"AGENT_LS_INDEX_URL": pg_url}
    built = agent_ls("index", "--workspace", str(workspace), "--json", **env)
    assert built.returncode == 0, built.stderr
    before = _ranked(workspace, env)
    with psycopg.connect(pg_url, autocommit=True) as conn:  # back to the former form
        conn.execute("DROP TABLE agent_ls.chunk_words, agent_ls.words, agent_ls.workspaces")
        conn.execute("DELETE FROM agent_ls.meta WHERE key = 'postings_version'")
        conn.execute("ALTER TABLE agent_ls.chunks ADD COLUMN IF NOT EXISTS tsv TSVECTOR")
        conn.execute("UPDATE agent_ls.chunks SET tsv = to_tsvector('simple', indexed_text)")
        conn.execute("CREATE INDEX IF NOT EXISTS chunks_tsv ON agent_ls.chunks USING GIN (tsv)")
    assert _ranked(workspace, env) == before
    with psycopg.connect(pg_url) as conn:
        columns = conn.execute(
            "SELECT column_name FROM information_schema.columns"
            " WHERE table_schema = 'agent_ls' AND table_name = 'chunks'"
        ).fetchall()
    assert ("tsv",) not in columns


V1_LAYOUT = """
CREATE TABLE agent_ls.postings (
    chunk BIGINT NOT NULL, workspace INTEGER NOT NULL, length INTEGER NOT NULL,
    tf REAL NOT NULL, word TEXT NOT NULL
);
INSERT INTO agent_ls.postings SELECT t.chunk, t.workspace, t.length, u.tf, w.word
    FROM agent_ls.chunk_words t CROSS JOIN unnest(t.words, t.tfs) AS u(id, tf)
    JOIN agent_ls.words w ON w.id = u.id;
CREATE INDEX postings_word ON agent_ls.postings (workspace, word, chunk) INCLUDE (tf, length);
CREATE INDEX postings_chunk ON agent_ls.postings (chunk);
DROP TABLE agent_ls.chunk_words, agent_ls.words;
UPDATE agent_ls.meta SET value = '1' WHERE key = 'postings_version';
"""


def _tables(pg_url: str) -> set[str]:
    with psycopg.connect(pg_url) as conn:
        rows = conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'agent_ls'")
        return {name for (name,) in rows}


def test_an_index_of_a_row_per_posting_is_upgraded_on_open(tmp_path: Path, pg_url: str) -> None:
    """The previous layout (a row per word of a chunk with the word's text: 30x the space of
    the GIN index before it) is replaced when the index is opened, with the same answers."""
    workspace = _workspace(tmp_path / "ws")
    env = {"AGENT_LS_INDEX_URL": pg_url}
    built = agent_ls("index", "--workspace", str(workspace), "--json", **env)
    assert built.returncode == 0, built.stderr
    before = _ranked(workspace, env)
    with psycopg.connect(pg_url, autocommit=True) as conn:  # back to the previous layout
        conn.execute(V1_LAYOUT)
    assert "postings" in _tables(pg_url)
    assert _ranked(workspace, env) == before
    assert "postings" not in _tables(pg_url)
    assert {"chunk_words", "words"} <= _tables(pg_url)


def _postings(pg_url: str, store: PgStore) -> list[tuple[str, str, int]]:
    """The words of ``store``'s workspace's chunks: (document or '' when its chunk is gone,
    word, chunk position)."""
    with psycopg.connect(pg_url) as conn:
        rows = conn.execute(
            "SELECT coalesce(c.document, ''), w.word, coalesce(c.position, -1)"
            " FROM agent_ls.chunk_words t CROSS JOIN unnest(t.words) AS u(id)"
            " JOIN agent_ls.words w ON w.id = u.id JOIN agent_ls.workspaces s"
            " ON s.id = t.workspace LEFT JOIN agent_ls.chunks c ON c.id = t.chunk WHERE s.key = %s",
            (store.workspace,),
        ).fetchall()
    return sorted(rows)


def _counts(pg_url: str, store: PgStore) -> dict[str, int]:
    """The chunk count kept for each word of ``store``'s workspace (words in no chunk left out)."""
    with psycopg.connect(pg_url) as conn:
        rows = conn.execute(
            "SELECT w.word, w.chunks FROM agent_ls.words w JOIN agent_ls.workspaces s"
            " ON s.id = w.workspace WHERE s.key = %s AND w.chunks <> 0",
            (store.workspace,),
        ).fetchall()
    return dict(rows)


def test_a_replaced_or_removed_document_leaves_no_postings(tmp_path: Path, pg_url: str) -> None:
    """Only the live chunks' words are posted and counted; an index that went through
    replacements scores as one written once with the final text."""
    edited = PgStore(pg_url, workspace_key(tmp_path / "edited"))
    fresh = PgStore(pg_url, workspace_key(tmp_path / "fresh"))
    try:
        edited.replace_chunks(
            ready("a.md", 2),
            [chunk("a.md", 0, "apple orchard harvest"), chunk("a.md", 1, "apple cider press")],
        )
        edited.replace_chunks(ready("gone.md", 1), [chunk("gone.md", 0, "apple pie recipe")])
        final = [chunk("a.md", 0, "banana harvest")]
        edited.replace_chunks(ready("a.md", 1, "h2"), final)
        edited.remove_document("gone.md")
        fresh.replace_chunks(ready("a.md", 1, "h2"), final)
        fresh.replace_chunks(ready("b.md", 1), [chunk("b.md", 0, "apple tree")])
        edited.replace_chunks(ready("b.md", 1), [chunk("b.md", 0, "apple tree")])

        posted = _postings(pg_url, edited)
        assert {document for document, _, _ in posted} == {"a.md", "b.md"}
        assert not [word for _, word, _ in posted if word in {"orchard", "cider", "pie"}]
        assert posted == _postings(pg_url, fresh)
        counts = _counts(pg_url, edited)
        assert counts == _counts(pg_url, fresh)
        assert counts["apple"] == 1  # b.md's chunk; a.md's two and gone.md's are gone
        assert counts == Counter(word for _, word, _ in posted)  # chunks holding each word
        for question in ("apple harvest", "banana", "apple"):
            scores = [[hit.score for hit in s.search(question, 5)] for s in (edited, fresh)]
            assert scores[0] == scores[1]
            assert scores[0]
        edited.remove_document("a.md")
        edited.remove_document("b.md")
        assert _postings(pg_url, edited) == []
        assert _counts(pg_url, edited) == {}
        assert _counts(pg_url, fresh)["apple"] == 1  # another workspace's counts are its own
    finally:
        edited.close()
        fresh.close()


def test_a_word_too_long_for_the_index_is_left_out(tmp_path: Path, pg_url: str) -> None:
    """A run of letters longer than PostgreSQL indexes (2047 bytes, as a ``tsvector`` drops)
    does not fail the document's write; its other words are found."""
    store = PgStore(pg_url, workspace_key(tmp_path))
    try:
        store.replace_chunks(ready("blob.md", 1), [chunk("blob.md", 0, "x" * 5000 + " payload")])
        (hit,) = store.search("payload", 5)
        assert hit.chunk.document == "blob.md"
    finally:
        store.close()


def test_a_batch_of_replacements_counts_each_chunk_once(tmp_path: Path, pg_url: str) -> None:
    """A build writes documents in batches (one transaction, the word counts updated once per
    batch), a path possibly twice in one: the counts are those of the chunks left, as if
    each document had been written alone."""
    batched = PgStore(pg_url, workspace_key(tmp_path / "batched"))
    alone = PgStore(pg_url, workspace_key(tmp_path / "alone"))
    try:
        first = [chunk("a.md", 0, "apple orchard"), chunk("a.md", 1, "apple cider")]
        documents = [
            (ready("a.md", 2), first),
            (ready("b.md", 1), [chunk("b.md", 0, "apple tree")]),
            (ready("a.md", 1, "h2"), [chunk("a.md", 0, "banana orchard")]),
            (ready("c.md", 1), [chunk("c.md", 0, "cider press")]),
        ]
        batched.replace_many(documents)
        for record, chunks in documents:
            alone.replace_chunks(record, chunks)
        counts = _counts(pg_url, batched)
        assert counts == _counts(pg_url, alone)
        assert (counts["apple"], counts["orchard"], counts["cider"]) == (1, 1, 1)
        assert _postings(pg_url, batched) == _postings(pg_url, alone)
        for question in ("apple orchard", "cider", "banana"):
            assert [(h.chunk.document, h.score) for h in batched.search(question, 5)] == [
                (h.chunk.document, h.score) for h in alone.search(question, 5)
            ]
    finally:
        batched.close()
        alone.close()
