"""The provider's summaries of a written document, asked with no index lock held.

A document with tables or long code blocks is written ``chunked`` with the deterministic
summaries (BM25 finds it at once); ``SummaryPhase`` then asks the summarizer in a task and
writes the document ``ready`` with the model's sentences (or, where it gave none, the chunks
already written). A document edited meanwhile is planned and asked again (``SUMMARY_ROUNDS``
times at most, then its deterministic summaries stay); one removed or re-indexed meanwhile is
left to that update; a file gone by then is ``failed`` "deleted while being indexed".
Mixed into ``WorkspaceIndex`` (which gives the store, the lock and the writes).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from actions.index.chunking import apply_summaries, summarized_by_model
from actions.index.files import FileSet
from actions.index.model import DocumentRecord, DocumentStatus
from actions.index.planning import DELETED_WHILE_INDEXED, Plan, plan_document, stale
from actions.index.store import Store
from actions.index.summary import Summarizer

log = logging.getLogger(__name__)
SUMMARY_ROUNDS = 3  # a document edited while summarized is summarized again, this often


@dataclass
class UpdateReport:
    """What one update did, by path."""

    indexed: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    # chunked -> ready: the summaries are final (the model's, or the deterministic ones
    # where it gave none)
    summarized: list[str] = field(default_factory=list)

    def merge(self, other: UpdateReport) -> None:
        """Add ``other``; a path is listed once, and not as indexed once it failed."""
        if other.indexed:
            seen = set(self.indexed)
            self.indexed += [path for path in other.indexed if path not in seen]
        self.unchanged += other.unchanged
        self.removed += other.removed
        if other.failed:
            self.failed.update(other.failed)
            self.indexed = [path for path in self.indexed if path not in self.failed]
        self.summarized += other.summarized

    @property
    def changed(self) -> list[str]:
        return self.indexed + self.removed + list(self.failed)


class SummaryPhase:
    """See the module docstring."""

    store: Store
    files: FileSet
    summarizer: Summarizer | None
    summaries_off: str  # why there is no summarizer (status)
    on_summarized: Callable[[UpdateReport], None] | None
    _summarizing: set[asyncio.Task[UpdateReport]]
    _lock: asyncio.Lock

    def _write(self, plans: list[Plan], *, chunked: bool = True) -> tuple[UpdateReport, list[Plan]]:
        raise NotImplementedError

    def _apply(self, plan: Plan, status: DocumentStatus = "ready") -> UpdateReport:
        raise NotImplementedError

    def _embed_later(self) -> None:
        raise NotImplementedError

    def _summarize_later(self, plans: list[Plan]) -> asyncio.Task[UpdateReport]:
        """Ask the summarizer about these ``chunked`` documents in a task (no lock held)."""
        task = asyncio.ensure_future(self._summarize(plans))
        self._summarizing.add(task)
        task.add_done_callback(self._summarizing.discard)
        return task

    async def _summarize(self, plans: list[Plan]) -> UpdateReport:
        """Write the model's summaries of these documents (see the module docstring)."""
        report = UpdateReport()
        for _ in range(SUMMARY_ROUNDS):
            await asyncio.gather(*(self._ask(plan) for plan in plans))
            async with self._lock:
                done, plans = await asyncio.to_thread(self._finish, plans)
            report.merge(done)
            if not plans:
                break
        else:  # edited on every round: its deterministic summaries stay
            async with self._lock:
                report.merge((await asyncio.to_thread(self._write, plans, chunked=False))[0])
        if report.summarized or report.failed:
            self._embed_later()
            if self.on_summarized is not None:
                self.on_summarized(report)
        return report

    async def _ask(self, plan: Plan) -> None:
        if self.summarizer is None:
            return
        try:
            chunks = await apply_summaries(plan.chunks, self.summarizer)
            plan.summarized, plan.chunks = chunks != plan.chunks, chunks
        except Exception as error:  # the fallback summaries stay
            log.warning("summarizing %s failed: %r", plan.path, error)

    def _finish(self, plans: list[Plan]) -> tuple[UpdateReport, list[Plan]]:
        """Write summarized documents ``ready`` (runs in a worker thread) unless an update
        replaced them meanwhile; what changed since is planned and written again ``chunked``
        (returned: to be summarized again)."""
        report, replanned = UpdateReport(), []
        known = self.store.documents()
        with self.store.batch():
            for plan in plans:
                assert plan.record is not None
                record = known.get(plan.path)
                if record is None or (record.status, record.content_hash) != (
                    "chunked",
                    plan.record.content_hash,
                ):
                    continue  # removed or re-indexed meanwhile: that update decides
                ready = replace(record, status="ready")
                if self.files.stat(plan.path) is None:
                    failed = DocumentRecord(plan.path, "failed", reason=DELETED_WHILE_INDEXED)
                    report.merge(self._apply(Plan(plan.path, "failed", failed)))
                elif stale(self.files, plan):
                    replanned.append(plan_document(self.files, plan.path, None, True))
                else:
                    if plan.summarized:
                        self._apply(replace(plan, action="chunks", record=ready))
                    else:  # no sentence from the model: the chunks written stay
                        self.store.put_document(ready)
                    report.summarized.append(plan.path)
        if not replanned:
            return report, []
        done, awaiting = self._write(replanned)
        report.merge(done)
        return report, awaiting

    def _awaits_summaries(self, plan: Plan) -> bool:
        return (
            self.summarizer is not None
            and plan.action in ("chunks", "resume")
            and any(chunk.summary and summarized_by_model(chunk) for chunk in plan.chunks)
        )

    def _summary_status(self) -> dict[str, object]:
        """Who writes table / long-code summaries: the provider, or the fallback and why."""
        if self.summarizer is None:
            return {"source": "fallback", "reason": self.summaries_off}
        report = getattr(self.summarizer, "report", None)
        return report() if report is not None else {"source": "provider"}
