"""Bytes a student process could send that a stock unpickler would act on: each is refused
before it is read, with a sentence; the judge is unharmed and the next test runs. Each test
here starts a fake student process (tests/checking/test_judge_protocol.py's) that writes the
frame by hand."""

from __future__ import annotations

import pytest

from agentlab_magics.checking.protocol.caps import DEPTH_CAP, OBJECTS_CAP
from tests.checking.test_judge_protocol import check, first


def test_a_value_nested_past_the_depth_cap_is_refused():
    report = check('''os.write(out, struct.pack("<I", 200_002) + b"\\x80\\x05" + b"]" * 100_000
                            + b"a" * 99_999 + b".")''')
    assert f"nested more than {DEPTH_CAP} levels deep" in first(report).message


def pickled(body: str) -> str:
    """A fake's line that sends `body` (a Python bytes literal: a pickle) as one frame."""
    return f"data = {body}\nos.write(out, struct.pack('<I', len(data)) + data)"


# bytes a stock unpickler would act on: each is refused before it is read, with a sentence
ACTS = {
    "imports a module": r"b'\x80\x05cos\nsystem\n.'",
    "imports by STACK_GLOBAL": r"b'\x80\x05\x8c\x02os\x8c\x06system\x93.'",
    "calls": r"b'\x80\x05\x8c\x01x\x8c\x01y\x86R.'",
    "builds an object's state": r"b'\x80\x05}\x8c\x01k\x8c\x01v\x86b.'",
    "makes an instance": r"b'\x80\x05(\x8c\x01xi__main__\nC\n.'",
    "grows its memo to gigabytes": r"b'\x80\x05]r\x00\x00\x00\x10.'",
    "shares one list by its memo": r"b'\x80\x05]\x94(h\x00h\x00l.'",
    "puts a list inside itself": r"b'\x80\x05]2a.'",
    "gets from a memo it never put (a student process's mark)": r"b'\x80\x05]j\x00\x00\x00\x7fa.'",
    "makes a set": r"b'\x80\x05\x8f.'",
    "holds an int of a million bits": r"b'\x80\x05\x8b' + (125_000).to_bytes(4, 'little') + b'\x01' * 125_000 + b'.'",
}


@pytest.mark.parametrize("body", ACTS.values(), ids=ACTS)
def test_bytes_a_stock_unpickler_would_act_on_are_refused_with_a_sentence(body):
    report = check(pickled(body))
    assert report.problem is None and len(report.outcomes) == 7
    assert all(o.outcome == "error" for o in report.outcomes)
    assert "sent something the checker cannot read (not plain data" in first(report).message


def test_a_frame_of_more_objects_than_the_cap_is_refused():
    report = check(pickled(f"b'\\x80\\x05](' + b'N' * {OBJECTS_CAP + 1} + b'e.'"))
    assert f"more than {OBJECTS_CAP:,} objects" in first(report).message
