"""vscode-client/src/protocol.ts is generated from server/protocol.py and committed: it must be
exactly what scripts/gen_protocol_ts.py writes now, so a payload changed on the server without
regenerating fails here instead of breaking the client at run time. The generator's rules
(names, optionality, types) are checked on small classes below.
"""

from __future__ import annotations

import difflib
import subprocess
import sys
from typing import Literal

import attrs
import pytest
from lsprotocol import types

from scripts import gen_protocol_ts as gen
from server import protocol

# JsonValue: get_type_hints resolves JsonObject's recursive "JsonValue" in this module.
from server.protocol import JsonObject, JsonValue  # noqa: F401


def names() -> gen.Namer:
    return gen.Namer(protocol, gen.aliases(protocol))


def test_the_committed_protocol_ts_is_what_the_generator_writes() -> None:
    committed = gen.TARGET.read_text(encoding="utf-8")
    generated = gen.render(protocol)
    diff = "".join(
        difflib.unified_diff(
            committed.splitlines(keepends=True),
            generated.splitlines(keepends=True),
            "committed protocol.ts",
            "generated from server/protocol.py",
        )
    )
    assert committed == generated, (
        f"vscode-client/src/protocol.ts is stale: run `{gen.REGENERATE}`\n{diff[:4000]}"
    )


def test_the_check_option_passes_on_the_committed_file() -> None:
    run = subprocess.run(
        [sys.executable, str(gen.ROOT / "scripts" / "gen_protocol_ts.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (run.returncode, run.stdout) == (0, "")


def test_every_name_and_payload_of_protocol_py_is_declared() -> None:
    text = gen.render(protocol)
    for name, value in vars(protocol).items():
        if name.isupper() and isinstance(value, str):
            assert f'export const {name} = "{value}";' in text
        elif protocol._is_wire(value) and value is not protocol.ChatProgress:
            assert f"export interface {name} {{" in text
    for kind, cls in protocol.PROGRESS_TYPES.items():
        assert f"  {kind}: {cls.__name__};" in text
    assert "export interface Range {" in text
    assert "export interface Position {" in text


@attrs.frozen(kw_only=True)
class Sample:
    """A sample payload."""

    plan_id: str
    note: str | None = None
    reachable: bool | None
    count: int = 0
    tags: list[str]
    shape: Literal["a", "b"]
    blocks: list[protocol.BlockRecord]
    kind: protocol.FileActionName
    either: list[int | str]
    scores: dict[str, float]
    args: JsonObject
    pairs: tuple[protocol.UndoneFile, ...] = ()
    where: types.Range | None = None


def test_an_interface_spells_each_field_as_the_converter_sends_it() -> None:
    namer = names()
    assert gen.interface(Sample, namer) == (
        "/** A sample payload. */\n"
        "export interface Sample {\n"
        "  planId: string;\n"  # camelCase, as the converter renames it
        "  note?: string;\n"  # default None: left out while None
        "  reachable: boolean | null;\n"  # None without default: sent as null
        "  count: number;\n"  # any other default: always sent
        "  tags: string[];\n"
        '  shape: "a" | "b";\n'
        "  blocks: BlockRecord[];\n"  # a module alias by its name
        "  kind: FileActionName;\n"
        "  either: (number | string)[];\n"
        "  scores: Record<string, number>;\n"
        "  args: JsonObject;\n"
        "  pairs: UndoneFile[];\n"
        "  where?: Range;\n"
        "}\n"
    )
    assert namer.foreign == [types.Range]  # declared at the end of the file


def test_a_renamed_field_changes_the_generated_file() -> None:
    @attrs.frozen(kw_only=True)
    class UndoResult:
        """Result of `agent.undo` / `agent.redo` (`overridden`: changes lost to `force`)."""

        checkpoint: str  # was checkpoint_id
        files: list[protocol.UndoneFile]
        overridden: list[str]

    generated = gen.render(protocol)
    assert gen.interface(protocol.UndoResult, names()) in generated
    assert gen.interface(UndoResult, names()) not in generated


@pytest.mark.parametrize(
    ("py_type", "message"),
    [
        (set[str], "Odd.field: no TypeScript spelling for set[str]"),
        (bytes, "Odd.field: no TypeScript spelling for <class 'bytes'>"),
        (tuple[int, str], "Odd.field: no TypeScript spelling for tuple[int, str]"),
        (dict[int, str], "Odd.field: no TypeScript spelling for dict[int, str]"),
    ],
)
def test_a_type_without_a_typescript_spelling_is_named(py_type: object, message: str) -> None:
    with pytest.raises(gen.UnsupportedType, match=message.replace("[", r"\[")):
        gen.ts_type(py_type, names(), "Odd.field")
