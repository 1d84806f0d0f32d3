"""`agent/status`: which provider answers chat requests, why, and whether it answers now.

Params (optional): `{"check": false}` skips the test request (`reachable` is then null).
Result: `{provider, model, reason, reachable, detail, baseUrl, candidates, index}`, the same
facts `agent-ls doctor` prints; `index` is the retrieval index: `{state, backend, location,
documents: {pending, chunked, ready, failed}, chunks, failures: [{path, reason}], watching}`.
The test request goes through the server's cached provider, so a local model loaded for it
stays loaded for the chat that follows.
"""

from __future__ import annotations

from typing import Any

import attrs

from server.features.configuration import settled
from server.features.indexing import index_status
from server.lsp import AgentLanguageServer
from server.protocol import AGENT_STATUS, IndexReport, StatusReport, from_wire
from server.resolve import explicit_keys, provider_status


def register(server: AgentLanguageServer) -> None:
    server.feature(AGENT_STATUS)(status)


async def status(ls: AgentLanguageServer, params: Any) -> StatusReport:
    await settled(ls)
    config, _ = ls.state.config()
    explicit = explicit_keys(ls.state.init_options, ls.state.client_settings)
    check = not (isinstance(params, dict) and params.get("check") is False)
    report = await provider_status(config, explicit, provider_for=ls.state.provider, check=check)
    return attrs.evolve(report, index=from_wire(await index_status(ls), IndexReport))
