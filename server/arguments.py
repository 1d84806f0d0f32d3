"""Typed decoding of what a client sends to agent-ls' own requests and commands.

One converter (the wire's, `server.protocol`, made strict) types the params of `agent/*`
requests and the argument of every `workspace/executeCommand` of agent-ls. Nothing is coerced:
a string where a list is expected is not iterated letter by letter, ``"yes"`` is not a boolean,
``"5"`` not a number, a number not an object. Every mismatch is a JSON-RPC InvalidParams whose
message names the field (camelCase, ``$.files``) and the type expected; never a Python
exception's text.

A command takes at most one argument, an object (``agent.accept [{planId, files?}]``); with
none, its parameters are all defaults when it has no required field.
"""

from __future__ import annotations

import re
from types import UnionType
from typing import Any, TypeVar, Union, get_args, get_origin

import attrs
import cattrs
from cattrs.cols import list_structure_factory
from cattrs.gen import make_dict_structure_fn, override
from pygls.exceptions import JsonRpcInvalidParams

from server.wire.messages import camel, json_type

T = TypeVar("T")


class ArgumentTypeError(TypeError):
    """A value of the wrong JSON type; its message is shown to the client as it is."""


def strict(converter: cattrs.Converter) -> cattrs.Converter:
    """`converter` with no coercion of booleans, numbers and lists (see the module doc)."""
    converter.register_structure_hook(bool, _exact(bool, "true or false"))
    converter.register_structure_hook(int, _exact(int, "an integer"))
    converter.register_structure_hook(float, _number)

    def list_hook(cls: Any) -> Any:
        base = list_structure_factory(cls, converter)

        def hook(value: Any, _cls: Any) -> Any:
            if not isinstance(value, list):
                raise ArgumentTypeError(f"expected {_expected(cls)}, got {json_type(value)}")
            return base(value, cls)

        return hook

    converter.register_structure_hook_factory(_is_list, list_hook)
    return converter


def _is_list(cls: Any) -> bool:
    return get_origin(cls) is list


def _exact(kind: type, wanted: str) -> Any:
    def hook(value: Any, _cls: Any) -> Any:
        if type(value) is not kind:
            raise ArgumentTypeError(f"expected {wanted}, got {json_type(value)}")
        return value

    return hook


def _number(value: Any, _cls: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ArgumentTypeError(f"expected a number, got {json_type(value)}")
    return float(value)


def _expected(cls: Any) -> str:
    """How a type reads in an error: ``a list of strings``, ``an object {planId, files?}``."""
    simple = {str: "a string", int: "an integer", float: "a number", bool: "true or false"}
    if cls in simple:
        return simple[cls]
    if get_origin(cls) in (Union, UnionType):
        kinds = [_expected(arg) for arg in get_args(cls) if arg is not type(None)]
        return " or ".join(kinds) + (" or null" if type(None) in get_args(cls) else "")
    if get_origin(cls) is list:
        (item,) = get_args(cls) or (Any,)
        inner = _expected(item)
        return "a list" if inner == "a value" else f"a list of {_plural(inner)}"
    if attrs.has(cls):
        return f"an object {_shape(cls)}"
    return "a value"


def _plural(phrase: str) -> str:
    noun = re.sub(r"^an? ", "", phrase)
    return noun if noun.startswith("object") else noun + "s"


def _shape(cls: type) -> str:
    fields = [
        camel(field.name) + ("?" if field.default is not attrs.NOTHING else "")
        for field in attrs.fields(cls)
    ]
    return "{" + ", ".join(fields) + "}"


def _format(exc: BaseException, cls: Any) -> str:
    if isinstance(exc, ArgumentTypeError):
        return str(exc)
    if isinstance(exc, KeyError):
        return "required field missing"
    if cls is not None and _expected(cls) != "a value":
        return f"expected {_expected(cls)}"
    return cattrs.v.format_exception(exc, cls)


def describe(exc: Exception) -> str:
    """What did not fit, as `expected ... @ $.field` items (camelCase paths)."""
    if not isinstance(exc, cattrs.BaseValidationError):
        return _format(exc, None)
    lines = cattrs.transform_error(exc, format_exception=_format)
    return "; ".join(
        re.sub(r"@ \$(\S*)", lambda m: "@ $" + camel(m.group(1)), line) for line in lines
    )


def camel_case(converter: cattrs.Converter, cls: type[Any]) -> None:
    """Let `converter` read the attrs class `cls` from camelCase keys (``sessionId``), as
    `server.protocol` does for its own types."""
    renames: dict[str, Any] = {a.name: override(rename=camel(a.name)) for a in attrs.fields(cls)}
    converter.register_structure_hook(cls, make_dict_structure_fn(cls, converter, **renames))


def decode(converter: cattrs.Converter, params: Any, cls: type[T], what: str = "params") -> T:
    """`params` typed as `cls` (an attrs class), or InvalidParams saying what is wrong."""
    if params == []:  # by-position params, none given
        params = {}
    if params is None:
        raise JsonRpcInvalidParams(f"missing {what}: expected {_expected(cls)}")
    if attrs.has(cls) and not isinstance(params, dict):
        raise JsonRpcInvalidParams(
            f"invalid {what}: expected {_expected(cls)}, got {json_type(params)}"
        )
    try:
        return converter.structure(params, cls)
    except (cattrs.BaseValidationError, TypeError, ValueError, KeyError) as exc:
        raise JsonRpcInvalidParams(f"invalid {what}: {describe(exc)}") from None


def decode_command(
    converter: cattrs.Converter, command: str, arguments: tuple[Any, ...], cls: type[T]
) -> T:
    """The one argument of `command` typed as `cls`; no argument is `{}` (all defaults)."""
    if len(arguments) > 1:
        raise JsonRpcInvalidParams(
            f"{command}: expected one argument, {_expected(cls)}; got {len(arguments)}"
        )
    argument = arguments[0] if arguments else {}
    return decode(converter, argument, cls, f"argument of {command}")
