"""The agent core every front end (LSP, ACP, the `chat` command) shares.

`assembly.run_front_end_turn` assembles one turn (configuration, provider, review staging,
board notes, the `cli` provider's recording, tools, the loop); `loop` is the agent loop,
`turn` its state and types, `plan` its plan steps, `state` what a constrained provider is
told, `external` the recording of an external agent's own edits. Nothing here imports a
front end (tests/unit/test_layers.py).
"""
