"""Workspace confinement: hostile paths are refused with their reason, legit ones resolve."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from actions.errors import PathRefused
from actions.paths import Workspace

EXAMPLES = 2000 if os.environ.get("AGENT_LS_LONG_PROPERTIES") else 200


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A workspace with real files, a .git folder, a checkpoint store and hostile symlinks."""
    root = tmp_path / "ws"
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("top secret")
    (root / "src" / "deep" / "er").mkdir(parents=True)
    (root / "src" / "App.jsx").write_text("app")
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("[core]")
    (root / ".checkpoints").mkdir()
    (root / "README.md").write_text("readme")
    os.symlink(outside / "secret.txt", root / "leak.txt")
    os.symlink(outside, root / "outdir")
    os.symlink(root / "missing-target", root / "dangling")
    os.symlink(root / ".git", root / "gitlink")
    os.symlink(root / "src", root / "srclink")
    os.symlink("App.jsx", root / "src" / "alias.jsx")
    return root


@pytest.fixture
def ws(tree: Path) -> Workspace:
    return Workspace(tree, extra_denied=[tree / ".checkpoints"])


HOSTILE: list[tuple[str, str]] = [
    ("", "empty path"),
    ("   ", "empty path"),
    ("..", "climbs above"),
    ("../outside/secret.txt", "climbs above"),
    ("/../etc/passwd", "climbs above"),
    ("src/../../outside", "climbs above"),
    ("./src/../../x", "climbs above"),
    ("..\\..\\x", "climbs above"),
    ("src\\..\\..\\x", "climbs above"),
    ("~", "home-directory"),
    ("~/.ssh/id_rsa", "home-directory"),
    ("~root/.bashrc", "home-directory"),
    ("C:\\Windows\\system.ini", "Windows drive"),
    ("c:/x.txt", "Windows drive"),
    ("\\\\server\\share\\x", "UNC"),
    ("//server/share/x", "UNC"),
    ("src/a\x00.js", "control character U+0000"),
    ("src/a\n.js", "control character U+000A"),
    ("src/a\t.js", "control character U+0009"),
    ("src/\x1b[31m.js", "control character U+001B"),
    ("src/evil\u202egnp.js", "invisible character U+202E"),
    ("src/a\u200b.js", "invisible character U+200B"),
    ("a" * 256, "longer than 255 bytes"),
    ("é" * 128, "longer than 255 bytes"),
    ("/".join(["d" * 200] * 21), "longer than 4096 bytes"),
    ("src\uff0f..\uff0f..\uff0fx", "look-alike of a path separator"),
    ("src\u2215x", "look-alike of a path separator"),
    ("\u2024\u2024/x", "look-alike of '.' or '..'"),
    ("\u2025/x", "look-alike of '.' or '..'"),
    ("\uff0e\uff0e/outside", "look-alike of '.' or '..'"),
    (".git/config", ".git folder"),
    ("/.git", ".git folder"),
    ("src/../.git/HEAD", ".git folder"),
    (".GIT/config", ".git folder"),
    ("sub/.Git/objects", ".git folder"),
    ("\uff0egit/config", "look-alike of '.git'"),
    (".checkpoints/journal.json", "checkpoint store"),
    ("/.checkpoints", "checkpoint store"),
    ("leak.txt", "points outside the workspace"),
    ("outdir/secret.txt", "points outside the workspace"),
    ("outdir", "points outside the workspace"),
    ("dangling", "dangling symlink"),
    ("gitlink/config", ".git folder"),
]


@pytest.mark.parametrize(("raw", "reason"), HOSTILE)
@pytest.mark.parametrize("for_write", [False, True])
def test_hostile_paths_are_refused_with_their_reason(
    ws: Workspace, raw: str, reason: str, for_write: bool
) -> None:
    with pytest.raises(PathRefused) as caught:
        ws.resolve(raw, for_write=for_write)
    assert reason in caught.value.reason
    assert reason in str(caught.value)


@pytest.mark.parametrize(
    ("raw", "relative"),
    [
        ("src/App.jsx", "src/App.jsx"),
        ("/src/App.jsx", "src/App.jsx"),
        ("./src/App.jsx", "src/App.jsx"),
        ("./a/../b", "b"),
        ("src/deep/er/new file.txt", "src/deep/er/new file.txt"),
        ("src\\deep\\x.py", "src/deep/x.py"),
        ("/etc/passwd", "etc/passwd"),
        ("docs/日本語/メモ.md", "docs/日本語/メモ.md"),
        ("café/naïve résumé.txt", "café/naïve résumé.txt"),
        ("src//App.jsx", "src/App.jsx"),
        ("src/.gitignore", "src/.gitignore"),
        (".github/workflows/ci.yml", ".github/workflows/ci.yml"),
        ("src/...", "src/..."),
        ("srclink/App.jsx", "srclink/App.jsx"),
        ("src/alias.jsx", "src/alias.jsx"),
        (".env.example", ".env.example"),
    ],
)
@pytest.mark.parametrize("for_write", [False, True])
def test_legit_paths_resolve_inside_the_root(
    ws: Workspace, tree: Path, raw: str, relative: str, for_write: bool
) -> None:
    resolved = ws.resolve(raw, for_write=for_write)
    assert resolved.relative == relative
    assert resolved.absolute == tree.joinpath(*relative.split("/"))
    assert resolved.model_path == "/" + relative


def test_absolute_path_under_the_root_maps_onto_it(ws: Workspace, tree: Path) -> None:
    resolved = ws.resolve(str(tree / "src" / "App.jsx"), for_write=False)
    assert resolved.relative == "src/App.jsx"


def test_root_is_readable_but_not_writable(ws: Workspace) -> None:
    assert ws.resolve("/", for_write=False).is_root
    assert ws.resolve(".", for_write=False).relative == ""
    with pytest.raises(PathRefused, match="root itself"):
        ws.resolve("/", for_write=True)


@pytest.mark.parametrize(
    ("raw", "pattern"),
    [
        (".env", ".env"),
        ("config/.env.production", ".env.*"),
        ("certs/server.pem", "*.pem"),
        ("tls/PRIVATE.KEY", "*.key"),
        ("id_rsa", "id_rsa*"),
        ("keys/id_ed25519.pub", "id_ed25519*"),
        (".npmrc", ".npmrc"),
        (".netrc", ".netrc"),
        ("credentials.json", "credentials*"),
        ("home/.ssh/config", ".ssh/"),
        (".aws/config", ".aws/"),
    ],
)
def test_secret_files_are_refused_for_reads_and_writes_unless_allowed(
    tree: Path, raw: str, pattern: str
) -> None:
    strict = Workspace(tree)
    for for_write in (False, True):
        with pytest.raises(PathRefused) as caught:
            strict.resolve(raw, for_write=for_write)
        assert repr(pattern) in caught.value.reason
        assert "allowSecretFiles" in caught.value.reason
    assert strict.is_secret(raw)
    relaxed = Workspace(tree, allow_secrets=True)
    assert relaxed.resolve(raw, for_write=False).relative
    assert relaxed.resolve(raw, for_write=True).relative
    listed = Workspace(tree, secret_allow=[raw])
    assert listed.resolve(raw, for_write=True).relative == raw
    assert not listed.is_secret(raw)


def test_the_secret_allow_list_uses_gitignore_globs(tree: Path) -> None:
    ws = Workspace(tree, secret_allow=["certs/dev-*.pem", ".env.test"])
    assert ws.resolve("certs/dev-local.pem", for_write=True).relative == "certs/dev-local.pem"
    assert ws.resolve("app/.env.test", for_write=True).relative == "app/.env.test"
    for refused in ("certs/prod.pem", "other/dev-local.pem", ".env", "app/.env.prod"):
        with pytest.raises(PathRefused, match="secret deny list"):
            ws.resolve(refused, for_write=True)


def test_symlink_to_a_secret_inside_is_refused_for_reads(tree: Path) -> None:
    (tree / ".env").write_text("KEY=1")
    os.symlink(tree / ".env", tree / "harmless.txt")
    with pytest.raises(PathRefused, match="secret deny list"):
        Workspace(tree).resolve("harmless.txt", for_write=False)


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ("src", "existing directory"),
        ("src/deep", "existing directory"),
        ("README.md/child.txt", "'README.md' is a file"),
    ],
)
def test_write_only_refusals(ws: Workspace, raw: str, reason: str) -> None:
    ws.resolve(raw, for_write=False)
    with pytest.raises(PathRefused, match=reason):
        ws.resolve(raw, for_write=True)


def test_checkpoint_store_outside_the_workspace_is_ignored(tree: Path, tmp_path: Path) -> None:
    ws = Workspace(tree, extra_denied=[tmp_path / "elsewhere"])
    assert ws.resolve("elsewhere/x", for_write=True).relative == "elsewhere/x"


def test_workspace_reached_through_a_symlinked_root(tree: Path, tmp_path: Path) -> None:
    alias = tmp_path / "alias"
    os.symlink(tree, alias)
    ws = Workspace(alias)
    resolved = ws.resolve("src/App.jsx", for_write=False)
    assert resolved.absolute == alias / "src" / "App.jsx"
    with pytest.raises(PathRefused, match="points outside"):
        ws.resolve("leak.txt", for_write=False)
    assert ws.resolve(str(tree / "README.md"), for_write=False).relative == "README.md"


def test_non_string_path_is_refused(ws: Workspace) -> None:
    with pytest.raises(PathRefused, match="must be a string"):
        ws.resolve(42, for_write=False)  # type: ignore[arg-type]


_pieces = st.sampled_from(
    [
        "..",
        ".",
        "/",
        "\\",
        "~",
        ".git",
        ".GIT",
        "a",
        "b c",
        "é",
        "\uff0f",
        "\u2024",
        "\x00",
        "C:",
        ":",
        "//",
        ".env",
        "\u202e",
        " ",
        "src",
        "😀",
    ]
)
hostile_paths = st.lists(_pieces, max_size=8).map("".join) | st.text(max_size=40)


@settings(max_examples=EXAMPLES, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(raw=hostile_paths, for_write=st.booleans())
def test_resolved_paths_stay_inside_and_off_limits_stay_out(
    tmp_path: Path, raw: str, for_write: bool
) -> None:
    root = tmp_path / "ws"
    root.mkdir(exist_ok=True)
    workspace = Workspace(root, extra_denied=[root / ".store"])
    try:
        resolved = workspace.resolve(raw, for_write=for_write)
    except PathRefused:
        return
    absolute = Path(os.path.normpath(resolved.absolute))
    assert absolute == root or absolute.is_relative_to(root)
    assert absolute == root.joinpath(*[p for p in resolved.relative.split("/") if p])
    parts = [part.casefold() for part in resolved.relative.split("/")]
    assert ".git" not in parts
    assert ".." not in parts
    assert parts[0] != ".store"
    assert "\x00" not in resolved.relative


@pytest.mark.parametrize(
    ("listed", "reason"),
    [
        ("leak.txt", "symlink 'leak.txt' points outside the workspace"),
        ("outdir", "symlink 'outdir' points outside the workspace"),
        ("outdir/secret.txt", "symlink 'outdir' points outside the workspace"),
        ("dangling", "'dangling' is a dangling symlink"),
        ("gitlink/config", "symlink 'gitlink' points to '.git': the .git folder is off limits"),
        ("chain.txt", "symlink 'chain.txt' points outside the workspace"),
        ("key.txt", "symlink 'key.txt' points to 'keys/id_rsa': matches the secret deny list"),
        (".checkpoints/x", "inside the checkpoint store"),
        ("bad\nname", "control character"),
    ],
)
def test_a_listed_path_is_read_only_through_read_files_rules(
    tree: Path, ws: Workspace, listed: str, reason: str
) -> None:
    """`resolve_listed`: what a listing or a walk found goes through the rules of `resolve`;
    a symlink's target is judged by its own location and name."""
    os.symlink(tree / "leak.txt", tree / "chain.txt")  # a link to a link to outside
    (tree / "keys").mkdir()
    (tree / "keys" / "id_rsa").write_text("key")
    os.symlink("keys/id_rsa", tree / "key.txt")
    with pytest.raises(PathRefused) as refused:
        ws.resolve_listed(listed)
    assert reason in refused.value.reason


@pytest.mark.parametrize("listed", ["README.md", "src/alias.jsx", "srclink/App.jsx"])
def test_a_listed_path_inside_the_workspace_is_read(ws: Workspace, listed: str) -> None:
    resolved = ws.resolve_listed(listed)
    assert resolved.relative == listed
    assert resolved.absolute.read_text() in ("readme", "app")
