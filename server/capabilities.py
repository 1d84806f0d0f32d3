"""What the client can do, resolved once at `initialize` (ruff's `ResolvedClientCapabilities`).

Handlers ask these booleans instead of walking lsprotocol's optional capability tree on
every call; a client that sent nothing gets the most conservative answers.
"""

from __future__ import annotations

import attrs
from lsprotocol import types


@attrs.frozen
class ResolvedClientCapabilities:
    apply_edit: bool = False
    """`workspace/applyEdit`: open buffers can be edited (else only the disk is written)."""
    work_done_progress: bool = False
    """Server-initiated `$/progress` (`window/workDoneProgress/create`)."""
    code_action_resolve: frozenset[str] = frozenset()
    """CodeAction properties the client resolves lazily (`edit`, `command`); empty when it
    cannot resolve, or keeps no `data` to resolve with."""
    configuration: bool = False
    """`workspace/configuration`: settings can be pulled (a folder's too, by `scopeUri`)."""

    @classmethod
    def from_lsp(cls, capabilities: types.ClientCapabilities) -> ResolvedClientCapabilities:
        workspace = capabilities.workspace
        window = capabilities.window
        text_document = capabilities.text_document
        code_action = text_document.code_action if text_document else None
        resolvable: frozenset[str] = frozenset()
        if code_action and code_action.data_support and code_action.resolve_support:
            resolvable = frozenset(code_action.resolve_support.properties)
        return cls(
            apply_edit=bool(workspace and workspace.apply_edit),
            work_done_progress=bool(window and window.work_done_progress),
            configuration=bool(workspace and workspace.configuration),
            code_action_resolve=resolvable,
        )
