"""The student install: the agentlab_magics wheel holds every starter, no solution and no
held-back test, and runs where the instructor package is not installed.

The wheel is the one `agentlab course wheel` builds, as a student installs it. A solution
is looked for as its code: each name a lab asks for, its body in the lab's reference after the
docstring, compared line by line with indentation, blank lines and comments left aside.

A held-back test is looked for the same way, and by its name too.

A later lab's starter hands over the names earlier labs asked for, written out (lesson 6's
starter holds lesson 5's loop): that is the course's design, so a starter may hold the
solutions of the labs before it, never its own lab's nor a later one's, and no other file
of the wheel may hold any.
"""

from __future__ import annotations

import ast
import importlib
import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from agentlab_instructor.lab_files import all_lab_files
from agentlab_magics.checking.runner import lab_tests
from agentlab_magics.course import labs
from agentlab_magics.making import student_wheel

ROOT = Path(__file__).resolve().parents[2]
LABS = "agentlab_magics/course/labs/"  # each built-in lab's folder: its starter is starter.py


def starter_path(lab_id: str) -> str:
    return f"{LABS}{lab_id}/starter.py"


def is_starter(path: str) -> bool:
    return path.startswith(LABS) and path.endswith("/starter.py")


# Solutions the package gives anyway: a user message is the dict lesson 1's text shows and
# the teaching runtime's `lab.user` builds.
GIVEN = {("lesson1", "user_message")}


def code_lines(text: str) -> list[str]:
    """`text`'s lines as compared: stripped, without blank lines and comment lines."""
    return [line.strip() for line in text.splitlines()
            if line.strip() and not line.strip().startswith("#")]


def body(source: str, name: str) -> str:
    """The code of the top-level function `name` in `source`, after its docstring."""
    node = next(node for node in ast.parse(source).body
                if isinstance(node, ast.FunctionDef) and node.name == name)
    statements = node.body[1:] if ast.get_docstring(node) is not None else node.body
    lines = source.splitlines()[statements[0].lineno - 1:node.end_lineno]
    return "\n".join(code_lines("\n".join(lines)))


def solutions() -> dict[tuple[str, str], str]:
    """(lab, name) -> the code of the name the lab asks for, in course order."""
    files = all_lab_files()
    return {(lab.id, name): body(files[lab.id].reference, name)
            for lab in labs().values() for name in lab.names}


def holds(text: str, code: str) -> bool:
    return code in "\n".join(code_lines(text))


def held_back_tests() -> list[tuple[str, str]]:
    """(module, name) of every held-back test of the course, by the module that defines it."""
    return sorted({(test.function.__module__, test.name) for lab in labs().values()
                   for test in lab_tests(lab, held_back=True) if test.held_back})


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The student wheel, as `agentlab course wheel` builds it."""
    return student_wheel.build(tmp_path_factory.mktemp("student-wheel"))


@pytest.fixture(scope="module")
def files(wheel) -> dict[str, str]:
    """Every file of the wheel, by its path in the wheel, as text."""
    with zipfile.ZipFile(wheel) as archive:
        return {name: archive.read(name).decode("utf-8", errors="replace")
                for name in archive.namelist() if not name.endswith("/")}


@pytest.fixture(scope="module")
def student(wheel, tmp_path_factory):
    """Run Python as a student's install: the wheel and the dependencies, no instructor package.

    `-S` skips site-packages' .pth files, which is where an editable install of either
    package would hook in; the dependencies are reached through PYTHONPATH instead.
    """
    installed = tmp_path_factory.mktemp("student-install")
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(installed)
    site = dict.fromkeys(sysconfig.get_paths()[key] for key in ("purelib", "platlib"))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(installed), *site])}

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-S", *args], capture_output=True, text=True,
                              timeout=120, env=env, cwd=installed)

    return run


def test_the_wheel_holds_no_part_of_the_instructor_package(files):
    assert not [name for name in files if name.startswith("agentlab_instructor")
                or name.endswith(("/harness.py", "harness_file.py", "lab_files.py"))
                or "/early/" in name]


@pytest.mark.parametrize("lab_id", list(labs()))
def test_every_starter_is_in_the_wheel_as_released(files, lab_id):
    assert files[starter_path(lab_id)] == all_lab_files()[lab_id].starter


LOOKED_FOR = [key for key in solutions() if key not in GIVEN]


@pytest.mark.parametrize(("lab_id", "name"), LOOKED_FOR,
                         ids=[f"{lab}:{name}" for lab, name in LOOKED_FOR])
def test_no_file_but_a_starter_holds_a_solution(files, lab_id, name):
    code = solutions()[lab_id, name]
    assert not [path for path, text in files.items()
                if not is_starter(path) and holds(text, code)]


@pytest.mark.parametrize("lab_id", list(labs()))
def test_a_starter_holds_no_solution_but_of_the_labs_before_it(files, lab_id):
    order, every = list(labs()), solutions()
    earlier = {code for (lab, _), code in every.items() if order.index(lab) < order.index(lab_id)}
    starter = files[starter_path(lab_id)]
    own = [name for (lab, name), code in every.items() if lab == lab_id and holds(starter, code)]
    ahead = [f"{lab}:{name}" for (lab, name), code in every.items()
             if holds(starter, code) and code not in earlier]
    assert (own, ahead) == ([], [])


HELD_BACK = held_back_tests()


def test_there_are_held_back_tests_to_look_for():
    assert len(HELD_BACK) >= 15


@pytest.mark.parametrize(("module", "name"), HELD_BACK,
                         ids=[f"{module.rpartition('.')[2]}:{name}" for module, name in HELD_BACK])
def test_no_file_holds_or_names_a_held_back_test(files, module, name):
    code = body(Path(importlib.import_module(module).__file__).read_text(encoding="utf-8"), name)
    assert not [path for path, text in files.items() if name in text or holds(text, code)]


def test_no_file_marks_a_test_held_back(files):
    assert not [path for path, text in files.items()
                if "@held_back" in text or "def held_back(" in text]


def test_every_module_imports_where_the_instructor_package_is_not_installed(student):
    done = student("-c", """
import importlib, pkgutil, sys
import agentlab_magics
for module in pkgutil.walk_packages(agentlab_magics.__path__, "agentlab_magics."):
    if module.name != "agentlab_magics.__main__" and ".starters." not in module.name:
        importlib.import_module(module.name)
from pathlib import Path
print(Path(agentlab_magics.__file__).is_relative_to(Path.cwd()))  # the wheel's, not the repo's
print(sorted(name for name in sys.modules if name.startswith("agentlab_instructor")))
""")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["True", "[]"]


def test_a_student_gets_the_starter_and_a_sentence_for_the_rest(student, files):
    starter = student("-m", "agentlab_magics", "starter", "lesson3")
    assert (starter.returncode, starter.stdout) == (0, files[starter_path("lesson3")])
    demo = student("-m", "agentlab_magics", "demo")  # the recording the student package holds
    assert demo.returncode == 0 and "a typo    : 3 model call(s)" in demo.stdout, demo.stderr
    for args, sentence in [(("solution", "lesson3"), "There is no solution to lesson3 here"),
                           (("course", "build", "--check"), "`agentlab course build` needs"),
                           (("course", "init", "course"), "`agentlab course init` needs")]:
        done = student("-m", "agentlab_magics", *args)
        assert done.returncode == 1 and done.stdout == "", args
        assert done.stderr.startswith("agentlab: ") and sentence in done.stderr, done.stderr
        assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    asked = student("-c", "from agentlab_magics.course.questions import questions_for\n"
                          "print(sum(len(questions_for(lab)) for lab in ('lesson1', "
                          "'checkpoint-a', 'lesson7')))")
    assert (asked.returncode, asked.stdout) == (0, "12\n"), asked.stderr  # the wheel's TOML
    reference = student("-c", "from agentlab_magics.course import find_lab\n"
                              "find_lab('lesson3').reference")
    assert reference.stderr.rstrip().splitlines()[-1].startswith(
        "agentlab_magics.course.instructor.InstructorPackageMissing: The reference of lesson3 "
        "needs the instructor package")


def test_the_wheel_gives_a_student_every_notebook_and_an_instructor_the_course_files(student,
                                                                                     files):
    done = student("-m", "agentlab_magics", "notebooks", "mine")
    assert done.returncode == 0 and "wrote mine/lesson1/lesson1.ipynb" in done.stdout, done.stderr
    assert "agentlab_magics/term/template/nbgrader_config.py" in files
    assert "agentlab_magics/hub/template/jupyterhub_config.py" in files
    assert "agentlab_magics/widgets/offline_templates/base/mathjax.html.j2" in files
