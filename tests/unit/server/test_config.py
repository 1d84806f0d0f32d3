"""Settings from the environment and from the client go through the same checks."""

from __future__ import annotations

import pytest

from server.config import Config, from_environment, merge


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (".env", (".env",)),
        (".env, certs/dev-*.pem", (".env", "certs/dev-*.pem")),
        ("true", ("*",)),
        ("FALSE", ()),
    ],
)
def test_allow_secret_files_from_the_environment(raw: str, expected: tuple[str, ...]) -> None:
    config, problems = from_environment({"AGENT_LS_ALLOW_SECRET_FILES": raw})
    assert problems == []
    assert config.allowSecretFiles == expected


def test_a_list_from_the_client_is_kept_as_is_and_a_bad_one_is_reported() -> None:
    config, problems = merge(Config(), {"allowSecretFiles": [".env", "a.pem"]}, "client")
    assert config.allowSecretFiles == (".env", "a.pem")
    kept, problems = merge(config, {"allowSecretFiles": [".env", ""]}, "client")
    assert kept.allowSecretFiles == (".env", "a.pem")
    assert [p.key for p in problems] == ["allowSecretFiles"]
    assert "glob" in problems[0].message()
