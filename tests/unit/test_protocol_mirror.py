"""The VS Code client's protocol.ts declares every payload of server/protocol.py, field by field.

For each wire type: the same field names (camelCase), the same optionality (a Python field
whose default is None is optional in TypeScript, every other field is required), and the same
type where both sides spell it simply (strings, numbers, booleans, literals, lists, other wire
types). Progress events are checked against the members of the `ProgressEvent` union.
"""

from __future__ import annotations

import re
import types as pytypes
import typing
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin

import attrs
import pytest

from server import protocol

ROOT = Path(__file__).resolve().parents[2]
PROTOCOL_TS = ROOT / "vscode-client" / "src" / "protocol.ts"

# Python name -> TypeScript name, where the client names a type differently.
TS_NAMES = {"CheckpointEntry": "CheckpointInfo"}
# Not declared as interfaces: the progress envelope (checked through `ProgressEvent`).
NOT_INTERFACES = {"ChatProgress", *(cls.__name__ for cls in protocol.PROGRESS_TYPES.values())}
# Client-only helper interfaces (lsprotocol's Position on the Python side).
TS_ONLY = {"Position"}
ENVELOPE = {"kind", "sessionId"}  # fields every flattened progress event has

_INTERFACE = re.compile(r"export interface (\w+) \{(.*?)\n\}", re.DOTALL)
_FIELD = re.compile(r"(\w+)(\?)?:\s*([^;\n]+?)\s*(?:;|$)", re.MULTILINE)


@attrs.frozen
class TsField:
    optional: bool
    type: str


TsFields = dict[str, TsField]


def ts_fields(body: str) -> TsFields:
    """The top-level fields of an object type's body (nested object types kept whole)."""
    while (flat := re.sub(r"\{[^{}]*\}", "object", body)) != body:
        body = flat
    return {m[1]: TsField(bool(m[2]), m[3].strip()) for m in _FIELD.finditer(body)}


def ts_interfaces(source: str) -> dict[str, TsFields]:
    return {name: ts_fields(body) for name, body in _INTERFACE.findall(source)}


def ts_progress_events(source: str) -> dict[str, TsFields]:
    """The members of `export type ProgressEvent = | {...} | {...};`, by kind."""
    start = source.index("export type ProgressEvent =")
    union = source[start : source.index(";\n\n", start)]
    members = [ts_fields(body) for body in re.findall(r"\{(.*?)\}", union, re.DOTALL)]
    return {member["kind"].type.strip('"'): member for member in members}


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def normal(ts_type: str) -> frozenset[str]:
    """A TypeScript type as a set of alternatives (`a | b` == `b | a`)."""
    return frozenset(part.strip() for part in ts_type.split("|"))


def expected_ts(py_type: Any, optional: bool = False) -> frozenset[str] | None:
    """How protocol.ts spells a Python field type; None when it is not compared.

    A None that is always sent (no default) is `| null`; an optional field leaves it out."""
    simple = {str: "string", bool: "boolean", int: "number", float: "number"}
    origin, args = get_origin(py_type), get_args(py_type)
    if py_type in simple:
        return frozenset({simple[py_type]})
    if protocol._is_json(py_type):
        return frozenset({"JsonObject"})
    if origin is Literal:
        return frozenset(f'"{value}"' for value in args)
    if origin in (Union, pytypes.UnionType):
        if py_type == protocol.BlockRecord:
            return frozenset({"BlockRecord"})
        parts = [expected_ts(arg) for arg in args if arg is not type(None)]
        if None in parts:
            return None
        alternatives = frozenset().union(*parts)  # type: ignore[arg-type]
        return alternatives | {"null"} if type(None) in args and not optional else alternatives
    if origin in (list, tuple):
        item = expected_ts(args[0])
        return None if item is None or len(item) != 1 else frozenset({f"{next(iter(item))}[]"})
    if attrs.has(py_type) and py_type.__module__ == protocol.__name__:
        return frozenset({TS_NAMES.get(py_type.__name__, py_type.__name__)})
    return None  # lsprotocol types (Range): the client declares its own shape


def mismatches(cls: type, ts: TsFields, ignore: set[str] = frozenset()) -> list[str]:  # type: ignore[assignment]
    """Every difference between the attrs class `cls` and the TypeScript fields `ts`."""
    hints = typing.get_type_hints(cls)
    python = {camel(a.name): a for a in attrs.fields(cls)}
    found = [f"{cls.__name__}.{n}: missing in protocol.ts" for n in python.keys() - ts.keys()]
    found += [
        f"{cls.__name__}.{n}: only in protocol.ts" for n in ts.keys() - python.keys() - ignore
    ]
    for name in python.keys() & ts.keys():
        field, other = python[name], ts[name]
        if (field.default is None) != other.optional:
            found.append(f"{cls.__name__}.{name}: optional on one side only")
        wanted = expected_ts(hints[field.name], optional=field.default is None)
        if wanted is not None and wanted != normal(other.type):
            found.append(f"{cls.__name__}.{name}: {sorted(wanted)} != {other.type!r}")
    return found


def wire_types() -> list[type]:
    return [
        cls
        for cls in vars(protocol).values()
        if isinstance(cls, type) and protocol._is_wire(cls) and cls.__name__ not in NOT_INTERFACES
    ]


@pytest.fixture(scope="module")
def source() -> str:
    return PROTOCOL_TS.read_text(encoding="utf-8")


@pytest.mark.parametrize("cls", wire_types(), ids=lambda cls: cls.__name__)
def test_each_payload_type_has_the_same_fields_in_protocol_ts(cls: type, source: str) -> None:
    interfaces = ts_interfaces(source)
    name = TS_NAMES.get(cls.__name__, cls.__name__)
    assert name in interfaces, f"protocol.ts declares no interface {name}"
    assert mismatches(cls, interfaces[name]) == []


def test_protocol_ts_declares_no_payload_the_server_lacks(source: str) -> None:
    python = {TS_NAMES.get(cls.__name__, cls.__name__) for cls in wire_types()}
    assert set(ts_interfaces(source)) - python - TS_ONLY == set()


@pytest.mark.parametrize("kind", sorted(protocol.PROGRESS_TYPES))
def test_each_progress_kind_has_the_same_fields_in_the_progress_union(
    kind: str, source: str
) -> None:
    events = ts_progress_events(source)
    assert kind in events, f"ProgressEvent has no member of kind {kind!r}"
    cls = protocol.PROGRESS_TYPES[kind]
    assert mismatches(cls, events[kind], ignore=ENVELOPE) == []
    assert events[kind]["sessionId"] == TsField(False, "string")


def test_the_progress_kinds_are_the_same_everywhere(source: str) -> None:
    declared = set(get_args(protocol.ProgressKind))
    assert set(protocol.PROGRESS_TYPES) == declared
    assert set(ts_progress_events(source)) == declared
    ts_kinds = re.search(r"export type ProgressKind = ([^;]+);", source)
    assert ts_kinds is not None
    assert normal(ts_kinds[1]) == frozenset(f'"{kind}"' for kind in declared)


# The check itself: a field renamed on either side is reported.


def test_a_field_renamed_in_protocol_ts_is_reported(source: str) -> None:
    renamed = source.replace(
        "  checkpointId: string;\n  files: UndoneFile[];",
        "  checkpointID: string;\n  files: UndoneFile[];",
    )
    assert renamed != source
    found = mismatches(protocol.UndoResult, ts_interfaces(renamed)["UndoResult"])
    assert sorted(found) == [
        "UndoResult.checkpointID: only in protocol.ts",
        "UndoResult.checkpointId: missing in protocol.ts",
    ]


def test_a_field_renamed_in_python_is_reported(source: str) -> None:
    @attrs.frozen(kw_only=True)
    class FileApplied:
        path: str
        action: protocol.FileActionName
        text: str  # was `message`
        planned: bool

    found = mismatches(FileApplied, ts_progress_events(source)["file_applied"], ignore=ENVELOPE)
    assert sorted(found) == [
        "FileApplied.message: only in protocol.ts",
        "FileApplied.text: missing in protocol.ts",
    ]


def test_a_changed_type_or_optionality_is_reported(source: str) -> None:
    changed = source.replace("  applied: string[];\n  skipped", "  applied?: string;\n  skipped")
    assert changed != source
    found = mismatches(protocol.PlanSummary, ts_interfaces(changed)["PlanSummary"])
    assert sorted(found) == [
        "PlanSummary.applied: ['string[]'] != 'string'",
        "PlanSummary.applied: optional on one side only",
    ]
