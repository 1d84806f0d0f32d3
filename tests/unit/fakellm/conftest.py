"""A running FakeLLM per test (empty script: each test sets its own)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fakellm import FakeLLM


@pytest.fixture
def llm() -> Iterator[FakeLLM]:
    with FakeLLM({}) as server:
        yield server
