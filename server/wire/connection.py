"""One client connection: frames in, checked messages to pygls, named errors back.

Lifecycle rules (LSP): requests before `initialize` get ServerNotInitialized, a second
`initialize` gets InvalidRequest, requests after `shutdown` get InvalidRequest; notifications
in those states are logged and dropped (`exit` always goes through).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import cattrs
from lsprotocol import types
from pygls.protocol.json_rpc import (
    JsonRPCNotification,
    JsonRPCRequestMessage,
    JsonRPCResponseMessage,
)

from server.wire.framing import BadFrame, Frame, FrameReader
from server.wire.messages import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    SERVER_NOT_INITIALIZED,
    Message,
    MsgId,
    Refusal,
    check_message,
    describe_error,
)
from server.wire.quirks import tolerated

if TYPE_CHECKING:
    from pygls.protocol import JsonRPCProtocol

log = logging.getLogger(__name__)


class Connection:
    def __init__(self, protocol: JsonRPCProtocol) -> None:
        self.protocol = protocol
        self.initialized = False
        self.shut_down = False

    async def run(self, reader: FrameReader) -> int:
        """Handle frames until the stream ends (0) or `exit` (its exit status)."""
        while True:
            frame = await reader.next()
            if frame is None:
                log.info("the client closed the connection")
                return 0
            try:
                self.handle_frame(frame)
            except SystemExit as exit_:  # pygls' `exit` handler
                return exit_.code if isinstance(exit_.code, int) else 0

    def handle_frame(self, frame: Frame | BadFrame) -> None:
        if isinstance(frame, BadFrame) and frame.problem:
            self.bad_frame(frame)
            return
        checked = check_message(frame.body)
        if isinstance(checked, Refusal):
            self.refuse(checked)
        else:
            self.handle(checked)

    def bad_frame(self, frame: BadFrame) -> None:
        log.warning("framing error: %s", frame.problem)
        if not frame.body.strip():
            return
        checked = check_message(frame.body)
        if isinstance(checked, Refusal):
            self.refuse(
                Refusal(
                    checked.code,
                    f"{frame.problem}; {checked.message}",
                    checked.id,
                    checked.is_request,
                )
            )
        elif checked.kind == "request":
            self.refuse(Refusal(INVALID_REQUEST, frame.problem, checked.id))
        else:
            log.warning("dropped a %s in a bad frame: %s", checked.kind, checked.method or "-")

    def refuse(self, refusal: Refusal) -> None:
        """Answer a request that cannot be handled; log what cannot be answered."""
        if refusal.id is None and not refusal.is_request:
            log.warning("ignored a bad message: %s", refusal.message)
            return
        if refusal.id is not None and not refusal.is_request:
            log.warning("ignored a bad notification or response: %s", refusal.message)
            return
        log.warning("refused request %r: %s", refusal.id, refusal.message)
        self.send_error(refusal.id, refusal.code, refusal.message)

    def send_error(self, msg_id: MsgId | None, code: int, message: str) -> None:
        self.protocol._send_data(
            {"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}}
        )

    def handle(self, message: Message) -> None:
        refusal = self.lifecycle(message)
        if refusal is not None:
            self.refuse(refusal)
            return
        if message.kind == "response" and self.answers_a_withdrawn_request(message.id):
            return
        structured = self.structure(message)
        if isinstance(structured, Refusal):
            self.refuse(structured)
            return
        self.protocol.handle_message(structured)

    def answers_a_withdrawn_request(self, msg_id: MsgId | None) -> bool:
        """A late answer to a request the server no longer waits for (the turn that asked was
        stopped, e.g. a consent prompt answered after Stop): dropped. pygls would set the result
        of the cancelled future, raise, and end the server."""
        futures = self.protocol._request_futures
        future = futures.get(msg_id) if msg_id is not None else None
        if msg_id is None or future is None or not future.done():
            return False
        del futures[msg_id]
        self.protocol._result_types.pop(msg_id, None)
        log.info("dropped the answer to request %r: the server stopped waiting for it", msg_id)
        return True

    def lifecycle(self, message: Message) -> Refusal | None:
        method, is_request = message.method, message.kind == "request"
        msg_id = message.id if is_request else None
        if message.kind == "response" or method == types.EXIT:
            return None
        if self.shut_down:
            return Refusal(
                INVALID_REQUEST, f"{method}: the server is shutting down", msg_id, is_request
            )
        if method == types.INITIALIZE:
            if self.initialized:
                return Refusal(
                    INVALID_REQUEST,
                    "initialize: the server is already initialized",
                    msg_id,
                    is_request,
                )
            self.initialized = is_request
            return None
        if not self.initialized:
            return Refusal(
                SERVER_NOT_INITIALIZED,
                f"{method}: the server is not initialized (send initialize first)",
                msg_id,
                is_request,
            )
        if method == types.SHUTDOWN and is_request:
            self.shut_down = True
        return None

    def structure(self, message: Message) -> Any:
        """The pygls message object, or a Refusal naming what does not fit the method."""
        protocol, data = self.protocol, message.data
        if message.kind == "response":
            return self.structure_response(message)
        fallback = JsonRPCRequestMessage if message.kind == "request" else JsonRPCNotification
        cls = protocol.get_message_type(message.method)
        if cls is None:  # not an LSP method: a handler of ours, or MethodNotFound from pygls
            cls, data = fallback, {"params": None, **data}
        try:
            return protocol._converter.structure(tolerated(message.method, data), cls)
        except (cattrs.BaseValidationError, TypeError, ValueError, AttributeError, KeyError) as exc:
            detail = describe_error(exc)
            return Refusal(
                INVALID_PARAMS,
                f"{message.method}: invalid params: {detail}",
                message.id if message.kind == "request" else None,
                message.kind == "request",
            )

    def structure_response(self, message: Message) -> Any:
        protocol, data = self.protocol, message.data
        if "error" in data:
            cls: Any = types.ResponseErrorMessage
        else:
            cls = protocol._result_types.pop(message.id, None) or JsonRPCResponseMessage
        try:
            return protocol._converter.structure(data, cls)
        except (cattrs.BaseValidationError, TypeError, ValueError, AttributeError, KeyError) as exc:
            problem = f"the client's response is malformed: {describe_error(exc)}"
            log.warning("response %r: %s", message.id, problem)
            error = types.ResponseError(code=INVALID_PARAMS, message=problem)
            protocol._handle_response(message.id, None, error)
            return Refusal(INVALID_REQUEST, problem, message.id, is_request=False)
