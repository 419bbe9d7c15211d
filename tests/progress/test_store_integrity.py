"""The progress store under pressure: processes writing at once, unreadable files, bad paths.

Concurrency is tested with real processes, not threads: the lock is a file lock between
processes, and the lost writes it prevents came from separate notebooks.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

import pytest

from agentlab_magics.progress import ProgressStore
from agentlab_magics.progress import store as store_module
from agentlab_magics.progress.store import ProgressError

WRITER = """
import sys, time
from pathlib import Path
from agentlab_magics.progress import ProgressStore

path, tag, go = sys.argv[1], sys.argv[2], Path(sys.argv[3])
while not go.exists():
    time.sleep(0.001)
for n in range(200):
    ProgressStore(path).checked("lesson1", [f"{tag}-{n}"], all_passed=False)
kept = ProgressStore(path).commit("checkpoint-a", "shared", tag)
print(kept.answer)
"""


def test_processes_writing_at_once_lose_no_write(tmp_path):
    path, go = tmp_path / "progress.json", tmp_path / "go"
    tags = ["a", "b", "c"]
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, str(path), tag, str(go)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
               for tag in tags]
    time.sleep(0.3)  # let every writer start and wait, so their writes overlap
    go.touch()
    results = [writer.communicate(timeout=120) for writer in writers]
    assert [writer.returncode for writer in writers] == [0, 0, 0], results
    stored = ProgressStore(path)
    expected = {f"{tag}-{n}" for tag in tags for n in range(200)}
    assert set(stored.lab("lesson1").tests_passed) == expected  # all 600, none lost
    # one commitment stands, and every process was told the same one
    kept = stored.lab("checkpoint-a").questions["shared"].answer
    assert {out.strip() for out, _ in results} == {kept}
    assert stored.notice is None


def test_a_write_keeps_what_another_store_wrote_since_it_loaded(tmp_path):
    path = tmp_path / "p.json"
    first, second = ProgressStore(path), ProgressStore(path)
    first.commit("lesson1", "q1", "A")
    second.commit("lesson1", "q2", "B")  # second loaded before first wrote
    second.save()
    assert set(ProgressStore(path).lab("lesson1").questions) == {"q1", "q2"}
    assert second.commit("lesson1", "q1", "C").answer == "A"  # the earlier commitment stands


UNREADABLE = {
    "not JSON": b"{not json",
    "not UTF-8": b'{"version": 1, "labs": {"caf\xe9": {}}}',
    "UTF-16": json.dumps({"version": 1, "labs": {}}).encode("utf-16"),
    "nested too deeply": b"[" * 100_000 + b"]" * 100_000,
    "wrong shape": json.dumps({"version": 1, "labs": {"lesson1": {"passed": "maybe"}}}).encode(),
    "wrong top level": b"[]",
    "an integer too long": b"1" * 5000,
    "empty": b"",
}


@pytest.mark.parametrize("content", UNREADABLE.values(), ids=UNREADABLE.keys())
def test_an_unreadable_file_is_kept_byte_for_byte_and_reported(tmp_path, content):
    path = tmp_path / "p.json"
    path.write_bytes(content)
    store = ProgressStore(path)  # never raises
    backups = list(tmp_path.glob("p.json.corrupt-*"))
    assert len(backups) == 1 and backups[0].read_bytes() == content
    notice = store.take_notice()
    assert notice.startswith(f"Your progress file {path} was unreadable: it is ")
    assert f"kept, unchanged, as {backups[0]}, and a fresh one was started" in notice
    assert f"%progress import {backups[0]}" in notice
    assert store.take_notice() is None  # said once
    store.commit("lesson1", "q", "A")  # and the fresh file works
    assert ProgressStore(path).lab("lesson1").questions["q"].answer == "A"


def test_a_file_with_a_byte_order_mark_is_read(tmp_path):
    path = tmp_path / "p.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(
        {"version": 1, "labs": {"lesson1": {"passed": True}}}).encode())
    store = ProgressStore(path)
    assert store.notice is None and store.lab("lesson1").passed


def test_the_reason_names_what_is_wrong(tmp_path):
    def reason(content: bytes) -> str:
        path = tmp_path / "p.json"
        path.write_bytes(content)
        return ProgressStore(path).notice
    at = UNREADABLE["not UTF-8"].index(b"\xe9")
    assert f"is not UTF-8 text (byte 0xe9 at position {at})" in reason(UNREADABLE["not UTF-8"])
    assert "nested too deeply" in reason(UNREADABLE["nested too deeply"])
    assert "is not valid JSON (line 1" in reason(UNREADABLE["not JSON"])
    assert "is not a progress file (labs.lesson1.passed" in reason(UNREADABLE["wrong shape"])


class FrozenClock(datetime):
    """A clock stuck in one second, so every backup made under it has the same time stamp."""

    @classmethod
    def now(cls, tz=None):
        return cls(2024, 5, 6, 7, 8, 9, tzinfo=tz)


def test_backups_made_in_the_same_second_never_replace_each_other(tmp_path, monkeypatch):
    monkeypatch.setattr(store_module, "datetime", FrozenClock)
    path = tmp_path / "p.json"
    for content in (b"first", b"second", b"third"):
        path.write_bytes(content)
        assert ProgressStore(path).notice
    backups = {p.name: p.read_bytes() for p in tmp_path.glob("p.json.corrupt-*")}
    assert backups == {"p.json.corrupt-20240506-070809": b"first",
                       "p.json.corrupt-20240506-070809-2": b"second",
                       "p.json.corrupt-20240506-070809-3": b"third"}


def test_a_file_spoiled_after_loading_is_set_aside_by_the_next_write(tmp_path):
    path = tmp_path / "p.json"
    store = ProgressStore(path)
    store.commit("lesson1", "q1", "A")
    path.write_bytes(b"\x00\x01 scribbled")
    store.checked("lesson2", ["t1"], all_passed=True)  # no exception
    [backup] = tmp_path.glob("p.json.corrupt-*")
    assert backup.read_bytes() == b"\x00\x01 scribbled"
    assert str(backup) in store.take_notice()
    assert ProgressStore(path).lab("lesson2").passed


def test_a_store_path_that_is_a_folder_is_said_once_and_never_written_over(tmp_path):
    """AGENTLAB_PROGRESS naming a folder: one sentence that says to name a file, the same
    when a change refuses (and not said twice in the notice), and the folder left as it was."""
    folder = tmp_path / "progress.json"
    folder.mkdir()
    (folder / "keep.txt").write_text("mine")
    store = ProgressStore(folder)
    sentence = (f"Your progress file {folder} is a folder: set AGENTLAB_PROGRESS to a file's "
                f"path, such as {folder / 'progress.json'}.")
    with pytest.raises(ProgressError) as refused:
        store.commit("lesson1", "q", "A")
    store.tell(str(refused.value))
    assert str(refused.value) == sentence and store.take_notice() == sentence
    assert [p.name for p in folder.iterdir()] == ["keep.txt"]


def test_export_to_a_bad_place_says_what_to_do_and_writes_nothing(tmp_path):
    store = ProgressStore(tmp_path / "p.json")
    store.commit("lesson1", "q", "A")
    a_file = tmp_path / "a-file.txt"
    a_file.write_text("x")
    problems = {
        Path("/"): "/ is a folder: give a file name in it, such as "
                   "`%progress export /progress.json`",
        tmp_path: f"{tmp_path} is a folder: give a file name in it",
        tmp_path / "missing" / "x.json": f"There is no folder {tmp_path / 'missing'}: create it",
        a_file / "x.json": f"{a_file} is a file, not a folder",
    }
    if Path("/sys").is_dir() and not os.access("/sys", os.W_OK | os.X_OK):
        problems[Path("/sys/agentlab-progress.json")] = "could not be written to"
    elif Path("/sys").is_dir():  # root: /sys refuses new files all the same
        problems[Path("/sys/agentlab-progress.json")] = "could not be written to /sys"
    for target, sentence in problems.items():
        with pytest.raises(ProgressError) as raised:
            store.export(target)
        assert sentence in str(raised.value)
    assert not (tmp_path / "missing").exists() and a_file.read_text() == "x"


def test_import_of_a_missing_or_garbage_file_changes_nothing(tmp_path):
    store = ProgressStore(tmp_path / "p.json")
    store.commit("lesson1", "q", "A")
    garbage = tmp_path / "garbage.json"
    garbage.write_bytes(bytes(range(256)))
    deep = tmp_path / "deep.json"
    deep.write_bytes(b"[" * 100_000)
    cases = {tmp_path / "missing.json": "There is no progress file at",
             tmp_path: "is a folder: give the progress file in it",
             garbage: "is not UTF-8 text (byte 0x80 at position 128). Nothing was imported",
             deep: "nested too deeply to read). Nothing was imported"}
    for source, sentence in cases.items():
        with pytest.raises(ProgressError) as raised:
            store.import_(source)
        assert sentence in str(raised.value)
    assert ProgressStore(tmp_path / "p.json").data == store.data
    assert garbage.read_bytes() == bytes(range(256))  # an import never moves its source

