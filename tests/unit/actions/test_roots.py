"""Folder names and path routing of a multi-root workspace (actions/roots.py), on real folders."""

from __future__ import annotations

from pathlib import Path

import pytest

from actions.errors import PathRefused
from actions.paths import Workspace
from actions.roots import Roots, folder_names


def make(root: Path, files: dict[str, str]) -> Workspace:
    root.mkdir(parents=True, exist_ok=True)
    for relative, text in files.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text)
    return Workspace(root)


@pytest.fixture
def roots(tmp_path: Path) -> Roots:
    front = make(tmp_path / "front", {"src/app.ts": "a", "README.md": "f", ".env": "S=1"})
    back = make(tmp_path / "back", {"x.py": "x", "README.md": "b", "front/inner.txt": "i"})
    return Roots.of([front, back])


def test_distinct_base_names_are_the_names() -> None:
    assert folder_names([Path("/w/front"), Path("/w/back")]) == ["front", "back"]


def test_same_base_names_are_told_apart_by_their_parents() -> None:
    paths = [Path("/x/client/app"), Path("/x/server/app"), Path("/x/lib")]
    assert folder_names(paths) == ["app@client", "app@server", "lib"]


def test_same_base_and_parent_names_use_more_parents() -> None:
    paths = [Path("/a/src/app"), Path("/b/src/app")]
    assert folder_names(paths) == ["app@a.src", "app@b.src"]


def test_a_told_apart_name_equal_to_another_folder_gets_a_number() -> None:
    names = folder_names([Path("/c/app"), Path("/s/app"), Path("/x/app@c")])
    assert names == ["app@c", "app@s", "app@c#2"]


def test_one_folder_stays_unqualified(tmp_path: Path) -> None:
    single = Roots.of([make(tmp_path / "only", {"a.py": "1"})])
    resolved = single.resolve("/a.py", for_write=False)
    assert resolved.model_path == "/a.py"
    assert not single.multi


def test_a_qualified_path_reaches_its_folder(roots: Roots, tmp_path: Path) -> None:
    resolved = roots.resolve("/back/x.py", for_write=False)
    assert resolved.absolute == tmp_path / "back" / "x.py"
    assert resolved.model_path == "/back/x.py"
    assert roots.resolve("back/x.py", for_write=False).absolute == resolved.absolute


def test_a_folder_name_wins_over_a_directory_of_that_name(roots: Roots, tmp_path: Path) -> None:
    shadowed = roots.resolve("front/inner.txt", for_write=False)
    assert shadowed.absolute == tmp_path / "front" / "inner.txt"  # not back/front/inner.txt
    inner = roots.resolve("/back/front/inner.txt", for_write=False)
    assert inner.absolute == tmp_path / "back" / "front" / "inner.txt"


def test_an_unqualified_path_in_exactly_one_folder_is_accepted(
    roots: Roots, tmp_path: Path
) -> None:
    resolved = roots.resolve("src/app.ts", for_write=True)
    assert resolved.absolute == tmp_path / "front" / "src" / "app.ts"
    assert resolved.model_path == "/front/src/app.ts"


def test_a_new_file_goes_where_its_first_directory_is(roots: Roots, tmp_path: Path) -> None:
    resolved = roots.resolve("src/new.ts", for_write=True)
    assert resolved.absolute == tmp_path / "front" / "src" / "new.ts"


def test_an_ambiguous_path_is_refused_naming_both_candidates(roots: Roots) -> None:
    with pytest.raises(PathRefused, match="ambiguous") as refused:
        roots.resolve("README.md", for_write=False)
    assert "/front/README.md" in refused.value.message
    assert "/back/README.md" in refused.value.message


def test_an_unknown_folder_is_refused_naming_the_folders(roots: Roots) -> None:
    with pytest.raises(PathRefused, match="/front, /back"):
        roots.resolve("/web/index.html", for_write=True)


def test_the_top_is_not_a_file(roots: Roots) -> None:
    assert roots.route("/", for_write=False) is None
    with pytest.raises(PathRefused, match="several folders"):
        roots.resolve("/", for_write=True)


def test_confinement_holds_per_folder(roots: Roots) -> None:
    with pytest.raises(PathRefused, match="climbs above"):
        roots.resolve("/front/../back/x.py", for_write=False)
    with pytest.raises(PathRefused, match="secret"):
        roots.resolve(".env", for_write=False)  # unqualified: the secret rule, not "unknown"


def test_an_absolute_path_of_a_folder_is_mapped_onto_it(roots: Roots, tmp_path: Path) -> None:
    resolved = roots.resolve(str(tmp_path / "back" / "x.py"), for_write=False)
    assert resolved.model_path == "/back/x.py"
