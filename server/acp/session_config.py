"""An ACP session's own settings: review on/off as a session config option (SPEC §7).

ACP's session config options (stable since protocol 1, in the SDK's `configOptions` of
`session/new` and `session/load`, changed by `session/set_config_option`) are how a client
offers per-session selectors. agent-ls offers one, `review`, a `select` (every client that
knows config options renders selects; `boolean` ones need the client's capability) in the
`mode` category: it is what decides whether the agent asks before writing.

- `on`: a plan's files are staged and each is asked about (`session/request_permission`);
- `off`: files are written as the plan goes.

A session starts with the `review` setting (`AGENT_LS_REVIEW`); the switch holds for the
session in this agent process (a `session/load` starts again from the setting). Answering a
permission request with `allow_always` turns it off for the session too, and the client is
told with a `config_option_update`.
"""

from __future__ import annotations

from acp import RequestError
from acp.schema import ConfigOptionUpdate, SessionConfigOptionSelect, SessionConfigSelectOption

REVIEW_OPTION = "review"
VALUES = {"on": True, "off": False}


def config_options(review: bool) -> list[SessionConfigOptionSelect]:
    """Every config option of a session, with its current value (ACP sends the full set)."""
    return [
        SessionConfigOptionSelect(
            id=REVIEW_OPTION,
            name="Review edits",
            description="Ask before each file of a plan is written",
            category="mode",
            type="select",
            current_value="on" if review else "off",
            options=[
                SessionConfigSelectOption(
                    value="on",
                    name="Review",
                    description="Stage the plan; ask for each file before it is written",
                ),
                SessionConfigSelectOption(
                    value="off",
                    name="Write",
                    description="Write the plan's files as the model sends them (/undo reverts)",
                ),
            ],
        )
    ]


def review_value(config_id: str, value: object) -> bool:
    """The review switch a `session/set_config_option` asks for; InvalidParams naming what
    is wrong for an unknown option or value."""
    if config_id != REVIEW_OPTION:
        message = f"invalid params: configId: unknown option {config_id!r} (options: review)"
        raise RequestError(-32602, message, {"configId": config_id})
    if not isinstance(value, str) or value not in VALUES:
        message = f"invalid params: value: {value!r} is not a value of review (on, off)"
        raise RequestError(-32602, message, {"value": value})
    return VALUES[value]


def config_update(review: bool) -> ConfigOptionUpdate:
    """The session/update telling the client the options changed (agent-side change)."""
    return ConfigOptionUpdate(
        session_update="config_option_update", config_options=list(config_options(review))
    )
