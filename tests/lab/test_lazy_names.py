"""`lab` loads each part when first used, and stays what the course pages import."""

from __future__ import annotations

import subprocess
import sys
import types

import agentlab_magics.lab as lab
from agentlab_magics.lab.drive import drive
from agentlab_magics.lab.replay import replay


def test_every_name_lab_lists_is_there_and_lab_lists_every_name_it_serves():
    assert sorted(lab.__all__) == sorted(lab._MODULE_OF)
    for name in lab.__all__:
        assert not isinstance(getattr(lab, name), types.ModuleType), name
    assert set(lab.__all__) <= set(dir(lab))


def test_drive_and_replay_stay_the_functions_once_their_modules_are_loaded():
    assert lab.drive is drive and lab.replay is replay


def test_an_unknown_name_is_an_attribute_error():
    try:
        lab.no_such_name  # noqa: B018
    except AttributeError as exc:
        assert "no_such_name" in str(exc)
    else:
        raise AssertionError("lab.no_such_name did not raise")


def test_the_student_process_starts_without_the_parts_of_lab_it_does_not_use():
    """Its start is what every check waits for: the scripted model, the views and the
    workspace (about 18 ms to import) load only when the student's code imports them."""
    code = ("import sys, agentlab_magics.checking.student_side\n"
            "print(sorted(name for name in ('agentlab_magics.lab.model', "
            "'agentlab_magics.lab.views', 'agentlab_magics.lab.workspace') "
            "if name in sys.modules))")
    loaded = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True,
                            check=True)
    assert loaded.stdout.strip() == "[]", loaded.stdout + loaded.stderr
