"""`indexSummaries` (AGENT_LS_INDEX_SUMMARIES): a true / false setting, from every source."""

from __future__ import annotations

import pytest

from server.config import Config, from_environment, merge


@pytest.mark.parametrize(
    ("value", "expected"),
    [("0", False), ("off", False), ("false", False), ("No", False), ("1", True), ("on", True)],
)
def test_the_environment_turns_summaries_off_and_on(value: str, expected: bool) -> None:
    config, problems = from_environment({"AGENT_LS_INDEX_SUMMARIES": value})
    assert (config.indexSummaries, problems) == (expected, [])


def test_a_bad_value_is_reported_and_the_previous_one_kept() -> None:
    config, problems = merge(Config(indexSummaries=False), {"indexSummaries": "maybe"}, "settings")
    assert config.indexSummaries is False
    (problem,) = problems
    assert problem.message() == (
        "agent-ls setting agentLs.indexSummaries (from settings): expected true or false, "
        "got 'maybe'; keeping indexSummaries's previous value."
    )
    assert merge(Config(), {"indexSummaries": False}, "settings")[0].indexSummaries is False
    assert Config().indexSummaries is True  # on by default
