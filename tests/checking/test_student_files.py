"""Student files that are not plain UTF-8 Python: each is a sentence, never a decoding error.

`load_path` decodes a file as Python decodes source (UTF-8, a byte order mark allowed, or the
encoding its coding line declares); `syntax_sentence` names a line even for a NUL byte.
`agentlab check` goes through them, so its output is the same sentence.
"""

from __future__ import annotations

import os

import pytest

from agentlab_magics.checking.cell_source import CodeProblem, load, load_path, syntax_sentence

HARNESS = "def double(x):\n    return 2 * x\n\n\nGREETING = 'café'\n"


def problem(path) -> str:
    with pytest.raises(CodeProblem) as raised:
        load_path(path)
    return str(raised.value)


def test_a_latin_1_file_names_the_byte_and_says_to_save_as_utf_8(tmp_path):
    path = tmp_path / "harness.py"
    path.write_bytes(HARNESS.encode("latin-1"))
    at = HARNESS.encode("latin-1").index(b"\xe9")
    assert problem(path) == (f"harness.py is not UTF-8 text (byte 0xe9 at position {at}, on "
                             "line 5): save it as UTF-8.")


def test_a_binary_file_is_not_a_text_file(tmp_path):
    path = tmp_path / "harness.py"
    path.write_bytes(bytes(range(256)))
    assert problem(path) == ("harness.py is not a text file: it holds NUL bytes, and byte 0x80 "
                             "at position 128 (line 2) is not UTF-8 text. Give the path of "
                             "your Python file.")


def test_a_utf_16_file_is_named_as_such(tmp_path):
    path = tmp_path / "harness.py"
    path.write_bytes(HARNESS.encode("utf-16"))
    assert problem(path) == ("harness.py is saved as UTF-16, which Python does not read as "
                             "source: save it as UTF-8.")


def test_a_byte_order_mark_is_accepted_as_python_accepts_it(tmp_path):
    path = tmp_path / "harness.py"
    path.write_bytes(b"\xef\xbb\xbf" + HARNESS.encode())
    module = load_path(path)
    assert module.double(4) == 8 and module.GREETING == "café"
    assert not module.__source__.startswith("\ufeff")
    assert load("\ufeff" + HARNESS).double(1) == 2  # text read with its mark still on


def test_a_declared_encoding_is_honoured_and_a_wrong_one_is_a_sentence(tmp_path):
    path = tmp_path / "harness.py"
    path.write_bytes(("# -*- coding: latin-1 -*-\n" + HARNESS).encode("latin-1"))
    assert load_path(path).GREETING == "café"
    path.write_bytes(b"# coding: klingon\n" + HARNESS.encode())
    assert problem(path) == ("The coding line at the top of harness.py is wrong (unknown "
                             "encoding: klingon): delete it and save the file as UTF-8.")
    path.write_bytes(("# coding: ascii\n" + HARNESS).encode("utf-8"))
    assert "harness.py is not ascii text as its coding line says (byte 0xc3" in problem(path)


def test_a_nul_byte_names_its_line(tmp_path):
    path = tmp_path / "harness.py"
    path.write_bytes(b"x = 1\ny = 2\nz = \x00 3\n")
    assert problem(path) == ("Line 3 of harness.py holds a NUL byte (\\0), which Python does "
                             "not allow in source: delete it. (Files saved as UTF-16, or with "
                             "binary data pasted in, hold them.)")


def test_syntax_sentence_without_a_line_never_says_line_none():
    assert syntax_sentence(SyntaxError("something odd"), "x = 1\n") == (
        "your code is not valid Python (something odd).")
    error = SyntaxError("source code string cannot contain null bytes")
    error.filename = "cell.py"
    assert syntax_sentence(error, "a\n\x00").startswith("Line 2 of cell.py holds a NUL byte")


def test_code_nested_too_deeply_to_compile_is_a_sentence():
    with pytest.raises(CodeProblem, match="is nested too deeply for Python to compile"):
        load("x = " + "-" * 100_000 + "1\n")


def test_a_missing_or_unreadable_path_is_a_sentence(tmp_path):
    assert problem(tmp_path / "nope.py") == (f"There is no file {tmp_path / 'nope.py'}. Give "
                                             "the path of your harness.py.")
    assert problem(tmp_path) == f"{tmp_path} is a folder. Give the path of your harness.py inside it."
    os.mkfifo(tmp_path / "pipe.py")
    assert problem(tmp_path / "pipe.py") == (
        f"{tmp_path / 'pipe.py'} is not a file to read (a pipe, a device or a socket). Give the "
        "path of your harness.py.")


@pytest.mark.parametrize("content, sentence", [
    (b"x = '\xe9'\n", "harness.py is not UTF-8 text (byte 0xe9 at position 5, on line 1): "
                      "save it as UTF-8."),
    (b"\x7fELF\x02\x01\x01\x00\x00\xd0\x00", "harness.py is not a text file: it holds NUL bytes"),
    (b"x = 1\n\x00\n", "Line 2 of harness.py holds a NUL byte"),
    (b"def chat(:\n", "Line 1 of harness.py is not valid Python"),
])
def test_agentlab_check_says_the_sentence_and_exits_2_unlike_a_failing_test(
        tmp_path, capsys, content, sentence):
    from agentlab_magics.cli import main

    path = tmp_path / "harness.py"
    path.write_bytes(content)
    assert main(["check", "lesson1", "--harness", str(path)]) == 2
    out, err = capsys.readouterr()
    assert sentence in out and "Traceback" not in out + err


def test_agentlab_check_accepts_a_reference_saved_with_a_byte_order_mark(tmp_path, capsys):
    from agentlab_magics.cli import main
    from agentlab_magics.course import find_lab

    path = tmp_path / "harness.py"
    path.write_bytes(b"\xef\xbb\xbf" + find_lab("lesson1").reference.encode())
    assert main(["check", "lesson1", "--harness", str(path)]) == 0
    assert capsys.readouterr().out.splitlines()[0].endswith("tests passed")
