"""The progress store: states, atomic writes, export/import round trips, corrupt files kept."""

import json

from agentlab_magics.progress import ProgressStore
from agentlab_magics.progress.store import ProgressError

QUESTIONS = {"q1": "B", "q2": None}  # q1's right answer is B; q2 is open (no one answer)


def test_states_follow_what_happened(tmp_path):
    store = ProgressStore(tmp_path / "p.json")
    assert store.lab("lesson5").state(QUESTIONS) == "not started"
    store.commit("lesson5", "q1", "B")
    assert store.lab("lesson5").state(QUESTIONS) == "in progress"
    store.checked("lesson5", ["test_a"], all_passed=True)
    assert store.lab("lesson5").state(QUESTIONS) == "in progress"  # q2 not answered yet
    store.commit("lesson5", "q2", "in my own words")
    assert store.lab("lesson5").state(QUESTIONS) == "mastered"


def test_a_commitment_is_never_replaced_and_survives_a_reload(tmp_path):
    path = tmp_path / "p.json"
    ProgressStore(path).commit("checkpoint-a", "a1", "C")
    again = ProgressStore(path)
    assert again.commit("checkpoint-a", "a1", "A").answer == "C"
    assert ProgressStore(path).lab("checkpoint-a").questions["a1"].answer == "C"


def test_passing_once_is_remembered_even_after_a_worse_run(tmp_path):
    store = ProgressStore(tmp_path / "p.json")
    store.checked("lesson3", ["t1", "t2"], all_passed=True)
    store.checked("lesson3", ["t1"], all_passed=False)
    assert store.lab("lesson3").passed and store.lab("lesson3").tests_passed == ["t1", "t2"]


def test_writes_leave_no_temporary_files(tmp_path):
    store = ProgressStore(tmp_path / "p.json")
    for n in range(5):
        store.commit("lesson1", f"q{n}", "A")
    # the lock file stays: removing it while another process waits on it would break the lock
    assert sorted(p.name for p in tmp_path.iterdir()) == [".p.json.lock", "p.json"]
    assert json.loads((tmp_path / "p.json").read_text())["version"] == 2


def test_the_default_path_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTLAB_PROGRESS", str(tmp_path / "elsewhere.json"))
    ProgressStore().commit("lesson1", "q", "A")
    assert (tmp_path / "elsewhere.json").exists()


def test_a_corrupt_file_is_moved_aside_and_reported(tmp_path):
    path = tmp_path / "p.json"
    path.write_text("{not json")
    store = ProgressStore(path)
    backups = list(tmp_path.glob("p.json.corrupt-*"))
    assert len(backups) == 1 and backups[0].read_text() == "{not json"
    assert "is not valid JSON" in store.notice and str(backups[0]) in store.notice
    assert not path.exists()
    wrong_shape = tmp_path / "q.json"
    wrong_shape.write_text(json.dumps({"version": 1, "labs": {"lesson1": {"passed": "maybe"}}}))
    assert "is not a progress file (labs.lesson1.passed" in ProgressStore(wrong_shape).notice


def test_export_and_import_round_trip_and_merge(tmp_path):
    first = ProgressStore(tmp_path / "a.json")
    first.commit("checkpoint-a", "a1", "C")
    first.checked("lesson6", ["t1"], all_passed=True)
    exported = first.export(tmp_path / "export.json")
    second = ProgressStore(tmp_path / "b.json")
    second.commit("checkpoint-a", "a2", "A")
    second.solution_opened("lesson3")
    assert second.import_(exported) == 2
    assert set(second.lab("checkpoint-a").questions) == {"a1", "a2"}
    assert second.lab("lesson6").passed and second.lab("lesson3").solution_opened
    assert ProgressStore(tmp_path / "b.json").data == second.data


def test_importing_a_bad_file_says_so_and_changes_nothing(tmp_path):
    store = ProgressStore(tmp_path / "a.json")
    store.commit("lesson1", "q", "A")
    bad = tmp_path / "bad.json"
    bad.write_text("[]")
    for source in (bad, tmp_path / "missing.json"):
        try:
            store.import_(source)
        except ProgressError as exc:
            assert str(source) in str(exc)
        else:
            raise AssertionError("a bad import was accepted")
    assert list(ProgressStore(tmp_path / "a.json").data.labs) == ["lesson1"]
