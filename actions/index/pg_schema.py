"""The PostgreSQL index's schema (``agent_ls``): its tables, what a failed set-up means, and
the markdown documents read again when their chunking changed.

``PgStore`` runs ``DDL`` (with ``pg_postings``' tables) at every connection, under a
transaction lock, then the upgrades: ``pg_postings.retokenize`` (the words, when their layout
or ``terms`` changed) and ``rechunk_markdown``. Every table is shared by the workspaces of
the database: each row carries its workspace's key (or number).
"""

from __future__ import annotations

from typing import Any

SCHEMA = "agent_ls"
SCHEMA_VERSION = "1"

TABLES_DDL = f"""
CREATE EXTENSION IF NOT EXISTS vector;
CREATE SCHEMA IF NOT EXISTS {SCHEMA};
CREATE TABLE IF NOT EXISTS {SCHEMA}.meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS {SCHEMA}.documents (
    workspace TEXT NOT NULL, path TEXT NOT NULL, status TEXT NOT NULL,
    content_hash TEXT NOT NULL DEFAULT '', size BIGINT NOT NULL DEFAULT 0,
    mtime_ns BIGINT NOT NULL DEFAULT 0, reason TEXT NOT NULL DEFAULT '',
    chunks INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (workspace, path)
);
CREATE TABLE IF NOT EXISTS {SCHEMA}.chunks (
    id BIGSERIAL PRIMARY KEY, workspace TEXT NOT NULL, document TEXT NOT NULL,
    position INTEGER NOT NULL, type TEXT NOT NULL, content TEXT NOT NULL,
    indexed_text TEXT NOT NULL, summary TEXT NOT NULL, is_atomic BOOLEAN NOT NULL,
    headings JSONB NOT NULL, start_line INTEGER NOT NULL, end_line INTEGER NOT NULL,
    language TEXT NOT NULL, embedding_status TEXT NOT NULL, embedding vector,
    length INTEGER NOT NULL DEFAULT 0
);
ALTER TABLE {SCHEMA}.chunks ADD COLUMN IF NOT EXISTS text_hash TEXT NOT NULL DEFAULT '';
ALTER TABLE {SCHEMA}.chunks ADD COLUMN IF NOT EXISTS embedding_error TEXT NOT NULL DEFAULT '';
ALTER TABLE {SCHEMA}.chunks ADD COLUMN IF NOT EXISTS start_page INTEGER NOT NULL DEFAULT 0;
ALTER TABLE {SCHEMA}.chunks ADD COLUMN IF NOT EXISTS end_page INTEGER NOT NULL DEFAULT 0;
CREATE INDEX IF NOT EXISTS chunks_document ON {SCHEMA}.chunks (workspace, document, position);
CREATE INDEX IF NOT EXISTS chunks_pending ON {SCHEMA}.chunks (workspace, id)
    WHERE embedding_status = 'pending';
"""
META_DDL = (
    f"INSERT INTO {SCHEMA}.meta VALUES ('schema_version', '{SCHEMA_VERSION}')"
    " ON CONFLICT DO NOTHING;"
)

PGVECTOR = "https://github.com/pgvector/pgvector"
INSUFFICIENT_PRIVILEGE = "42501"


def setup_hint(conn: Any, error: Any) -> str:
    """What to do about a failed set-up: the pgvector extension missing from the server, or
    installed but not created in this database by a role that may not create it."""
    import psycopg

    if getattr(error, "sqlstate", None) != INSUFFICIENT_PRIVILEGE and "vector" not in str(error):
        return ""
    try:
        available, created = conn.execute(
            "SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector'),"
            " EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector')"
        ).fetchone()
    except psycopg.Error:
        available = created = None
    if available is False:
        return f" — the pgvector extension is not installed on the PostgreSQL server ({PGVECTOR})"
    if created is False and getattr(error, "sqlstate", None) == INSUFFICIENT_PRIVILEGE:
        return (
            " — pgvector is installed on the server but not created in this database, and"
            " this role may not create it: a superuser must run `CREATE EXTENSION vector;`"
            " in this database once"
        )
    if getattr(error, "sqlstate", None) == INSUFFICIENT_PRIVILEGE:
        return (
            f" — this role may not create the {SCHEMA} schema or its tables: grant it CREATE"
            " on the database, or let its owner run `agent-ls index` once"
        )
    return ""


def version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split(".") if part.isdigit())


def rechunk_markdown(conn: Any) -> None:
    """Every workspace's markdown documents marked changed when ``CHUNKS_VERSION`` changed
    (their next update reads and cuts them again, keeping the vectors of unchanged chunk
    texts); then the version is recorded. In the caller's transaction, under the schema lock."""
    from actions.index.chunking import CHUNKS_VERSION, markdown_paths

    row = conn.execute(f"SELECT value FROM {SCHEMA}.meta WHERE key = 'chunks_version'").fetchone()
    if row is not None and row[0] == str(CHUNKS_VERSION):
        return
    paths = [path for (path,) in conn.execute(f"SELECT DISTINCT path FROM {SCHEMA}.documents")]
    conn.execute(
        f"UPDATE {SCHEMA}.documents SET mtime_ns = 0, content_hash = '' WHERE path = ANY(%s)",
        (markdown_paths(paths),),
    )
    conn.execute(
        f"INSERT INTO {SCHEMA}.meta VALUES ('chunks_version', %s)"
        " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        (str(CHUNKS_VERSION),),
    )
