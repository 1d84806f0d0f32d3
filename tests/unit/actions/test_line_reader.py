"""Bounded line reading: every line comes back whole (as windows) or capped with its true
length, whatever the block size, window size and overlap; line counts agree."""

from __future__ import annotations

import io

from hypothesis import given
from hypothesis import strategies as st

from actions.tools.line_reader import LineReader, segments

TEXTS = st.binary(max_size=300).map(lambda raw: bytes(b"ab\n"[byte % 3] for byte in raw))


def expected_lines(data: bytes) -> list[bytes]:
    lines = data.split(b"\n")
    return [line + b"\n" for line in lines[:-1]] + ([lines[-1]] if lines[-1] else [])


@given(TEXTS, st.integers(2, 12), st.data(), st.integers(1, 9))
def test_segments_rebuild_every_line(data: bytes, size: int, draw: st.DataObject, block: int):
    overlap = draw.draw(st.integers(0, size - 1))
    rebuilt: dict[int, bytes] = {}
    finals = []
    for segment in segments(io.BytesIO(data), size, overlap, block):
        assert len(segment.data) <= size
        so_far = rebuilt.get(segment.number, b"")
        assert segment.offset <= len(so_far) or segment.offset == 0
        rebuilt[segment.number] = so_far[: segment.offset] + segment.data
        assert segment.seen == segment.offset + len(segment.data)
        if segment.final:
            finals.append(segment.number)
    lines = expected_lines(data)
    assert [rebuilt[number] for number in sorted(rebuilt)] == lines
    assert finals == list(range(1, len(lines) + 1))


@given(TEXTS, st.integers(1, 12), st.integers(1, 9), st.data())
def test_capped_lines_and_the_count_of_the_rest(
    data: bytes, cap: int, block: int, draw: st.DataObject
) -> None:
    lines = expected_lines(data)
    read = list(LineReader(io.BytesIO(data), cap, block))
    assert [(line.head, line.length) for line in read] == [(x[:cap], len(x)) for x in lines]
    assert [line.cut for line in read] == [len(x) > cap for x in lines]
    reader = LineReader(io.BytesIO(data), cap, block)
    taken = draw.draw(st.integers(0, len(lines)))
    iterator = iter(reader)
    for _ in range(taken):
        next(iterator)
    assert reader.count_rest() == len(lines) - taken
    assert reader.read_lines == len(lines)
