"""``update_file`` with search/replace ``edits`` inside a plan: kept blocks and the report.

All blocks of a file apply or none do. When some fail, the ones that matched are *kept* by
the plan (not applied): the model re-sends only the corrected blocks, and the next
``update_file`` of that path applies kept + new blocks together, matched against the file as
it is then. A kept block that no longer matches is reported like any other and dropped. A
whole-content update, a create or a delete of the path discards the kept blocks.
"""

from __future__ import annotations

from collections.abc import Sequence

from actions.errors import ActionError
from actions.search_replace import EditBlock, EditsFailed, Failed, apply_edits

NUMBERED = "{number:>6}\t{line}"
"""How numbered file lines are shown to the model (as ``cat -n``): read_file uses it too."""


class EditsRefused(ActionError):
    """Some blocks of an update failed: nothing was written; ``kept`` matched and wait."""

    kind = "edits_refused"

    def __init__(self, report: str, kept: tuple[EditBlock, ...]) -> None:
        self.kept = kept
        super().__init__(report)


def edit_text(
    text: str, path: str, blocks: Sequence[EditBlock], kept: Sequence[EditBlock] = ()
) -> str:
    """``text`` with the kept and the new ``blocks`` applied (EditsRefused: nothing applied)."""
    combined: list[EditBlock] = list(dict.fromkeys(kept))
    labels = [_kept_label(block) for block in combined]
    for number, block in enumerate(blocks, start=1):
        if block not in combined:
            combined.append(block)
            labels.append(f"block {number}")
    try:
        return apply_edits(text, combined).text
    except EditsFailed as failure:
        matched = tuple(combined[m.index] for m in failure.matched)
        raise EditsRefused(render_report(path, failure, labels), matched) from None


def _kept_label(block: EditBlock) -> str:
    first = next((row.strip() for row in block.search.splitlines() if row.strip()), "")
    return f"kept block ({first[:40]!r})"


def render_report(path: str, failure: EditsFailed, labels: Sequence[str]) -> str:
    """What the model reads: each failed block with the real lines, then what was kept."""
    total = failure.total
    lines = [
        f"{len(failure.failed)} of {total} search/replace block(s) for {path} failed, so "
        "nothing was written to it (the blocks of a file apply together or not at all):"
    ]
    for failed in failure.failed:
        lines.append("- " + failed.describe(labels.__getitem__))
        lines += _nearest(failed)
    failing = ", ".join(labels[f.index] for f in failure.failed)
    if failure.matched:
        kept = ", ".join(labels[m.index] for m in failure.matched)
        lines.append(
            f"Matched and kept: {kept}. They will be applied together with your corrected "
            f"blocks; do not re-send them. Send update_file for {path} with edits holding only "
            f"the corrected {failing}."
        )
    else:
        lines.append(f"Send update_file for {path} again with the corrected {failing}.")
    return "\n".join(lines)


def _nearest(failed: Failed) -> list[str]:
    if failed.reason != "not_found" or not failed.nearest:
        return []
    shown = [NUMBERED.format(number=number, line=line) for number, line in failed.nearest]
    return [
        "  The file has these lines there (number, tab, line):",
        *shown,
        "  Copy search exactly from the file's current lines (without the line numbers).",
    ]
