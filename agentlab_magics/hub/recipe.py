"""Lay a hub out on this machine, as root: what `agentlab hub demo` does before JupyterHub
starts. Every step is one an administrator does by hand on a real hub (docs/instructors.md):

- a Unix user per person (made where missing), each home closed to everyone else;
- nbgrader's exchange: one folder every user may write to, sticky, so no one can remove or
  rename what another put there;
- the instructor package (held-back tests, references) copied where only the instructor's
  group may read it, and put on the instructor's PYTHONPATH alone;
- each role's Jupyter configuration: for everyone, the exchange and the course id; for
  students, the Assignments tab without the formgrader, and a Python kernelspec whose kernels
  keep to their share of the server's memory (kernel_memory.py); for the instructor, the
  course's own nbgrader configuration (so the formgrader grades through the isolated
  grader) with the instructor's home hidden from submissions too; for all, no news and no
  update checks;
- the instructor's course, written from the installed package (`agentlab course init`).

`clean` undoes it: the users the hub made (with their homes and whatever they still run) and
the hub's folder, as its plan recorded them.
"""

from __future__ import annotations

import importlib.util
import json
import os
import pwd
import shutil
import subprocess
import sys
from pathlib import Path

from agentlab_magics.course.instructor import ENTRY_POINTS, instructor_package
from agentlab_magics.grading.limits import SYSTEM_PATH, closed_ancestor
from agentlab_magics.grading.sandbox import own_tree
from agentlab_magics.hub.plan import PLAN, HubPlan
from agentlab_magics.making.new_course import init
from agentlab_magics.problems import UsageProblem
from agentlab_magics.term.nbgrader_cli import Nbgrader

PROXY = "configurable-http-proxy"
# A kernel's Unix socket is its user's home and 79 characters (the runtime folder, the kernel's
# id); a socket's path holds 107 (jupyterhub_config.py sets the transport).
HOME_ROOM = 107 - 79
# install lines that work as written, in a checkout of the course's repository
INSTALL_HUB = "pip install '.[hub]' in a checkout of the course's repository"
SHARED_ENV = "/usr/bin/python3 -m venv /opt/agentlab-hub && /opt/agentlab-hub/bin/pip install " \
             "'.[hub]'"
# The lab extensions a student does not get: the instructor's half of nbgrader.
STUDENT_HIDDEN = ["@jupyter/nbgrader:formgrader", "@jupyter/nbgrader:create-assignment",
                  "@jupyter/nbgrader:course-list"]


class HubProblem(UsageProblem):
    """The hub cannot start here; the message says what to do."""


def problems(plan: HubPlan) -> list[str]:
    """Why the hub of `plan` cannot start on this machine, one sentence each."""
    found = []
    if os.geteuid() != 0:
        found.append("The hub makes Unix users and starts each one's server as that user, so "
                     "it must run as root: sudo agentlab hub demo.")
    if shutil.which(PROXY) is None:
        found.append(f"JupyterHub's proxy ({PROXY}) is not installed: npm install -g {PROXY}.")
    if importlib.util.find_spec("jupyterhub") is None:
        found.append(f"JupyterHub is not installed in this Python: {INSTALL_HUB}.")
    closed = closed_ancestor(os.path.realpath(sys.executable))
    if closed is not None:
        python = os.path.realpath(sys.executable)
        found.append(f"The hub's users could not run this Python ({python}"
                     f": {closed} is closed to other users). Install the hub in an environment "
                     f"every user can run, e.g. `{SHARED_ENV}` in a checkout of the course's "
                     "repository, and run that environment's "
                     "agentlab.")
    if _instructor_package(plan) is None:
        where = (f"in {plan.instructor_package}: pass the folder that holds agentlab_instructor/"
                 if plan.instructor_package is not None else
                 "installed here, nor in ./instructor: run this in a checkout of the course's "
                 "repository, or pass the folder that holds it")
        found.append("The instructor package (agentlab_instructor, the held-back tests) is not "
                     f"{where} with --instructor-package.")
    long = [user for user in plan.users if len(str(_home(plan, user))) > HOME_ROOM]
    if long:
        found.append(f"A kernel reaches its server through a socket under its user's home, "
                     f"whose path may be at most {HOME_ROOM} characters; the home of "
                     f"{', '.join(long)} is longer: choose shorter user names.")
    return found


def _home(plan: HubPlan, user: str) -> Path:
    """`user`'s home: the one it has, or the one useradd gives a new user."""
    try:
        return plan.home(user)
    except KeyError:
        return Path("/home") / user


def prepare(plan: HubPlan) -> HubPlan:
    """Lay the hub out (see the module's docstring); returns the plan as the hub will read it."""
    broken = problems(plan)
    if broken:
        raise HubProblem(" ".join(broken))
    package = _instructor_package(plan)
    assert package is not None, "problems() says when the instructor package is missing"
    proxy = Path(os.path.abspath(shutil.which(PROXY) or PROXY))  # problems() found it
    plan = plan.model_copy(update={"instructor_package": package, "proxy": proxy})
    plan.folder.mkdir(parents=True, exist_ok=True)
    os.chmod(plan.folder, 0o755)
    plan.state.mkdir(exist_ok=True)
    os.chmod(plan.state, 0o700)  # the hub's database holds its servers' OAuth secrets
    before = _made_before(plan)
    plan.made_users = before + [user for user in plan.users if _user(user) and user not in before]
    # written now, so that `clean` finds the users even if a later step fails
    (plan.state / PLAN).write_text(plan.model_dump_json(indent=1), encoding="utf-8")
    plan.exchange.mkdir(exist_ok=True)
    os.chmod(plan.exchange, 0o1777)
    _copy_instructor_package(plan, package)
    _configuration(plan)
    _course(plan)
    (plan.state / PLAN).write_text(plan.model_dump_json(indent=1), encoding="utf-8")
    return plan


def _instructor_package(plan: HubPlan) -> Path | None:
    """The folder holding agentlab_instructor: the plan's; else where this Python finds it;
    else the instructor/ folder of the checkout this runs in, as docs/instructors.md
    installs the hub's environment (from a checkout, without the instructor package)."""
    if plan.instructor_package is not None:
        return _holding_the_package(plan.instructor_package.resolve())
    package = instructor_package()
    if package is not None and package.__file__:
        return Path(package.__file__).resolve().parents[1]
    return _holding_the_package(Path.cwd() / "instructor")


def _holding_the_package(folder: Path) -> Path | None:
    return folder if (folder / "agentlab_instructor" / "__init__.py").is_file() else None


def _made_before(plan: HubPlan) -> list[str]:
    """The users an earlier start of the hub in the same folder made (its plan, if one is
    there): a start that finds them already made keeps them on the list `clean` removes."""
    try:
        earlier = HubPlan.model_validate_json((plan.state / PLAN).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return list(earlier.made_users)


def _user(name: str) -> bool:
    """The Unix user `name` with a home of its own that no one else may enter; whether it was
    made now."""
    try:
        pwd.getpwnam(name)
        made = False
    except KeyError:
        subprocess.run([_tool("useradd"), "--create-home", "--user-group", "--shell",
                        "/bin/bash", name], check=True, capture_output=True)
        made = True
    os.chmod(pwd.getpwnam(name).pw_dir, 0o700)
    return made


def clean(folder: Path) -> list[str]:
    """Remove what the hub laid out in `folder` made: the users it made (their processes
    stopped first, their homes and groups removed) and the folder; returns what went, one
    line each. HubProblem where `folder` holds no hub's plan or this is not root."""
    plan_file = folder / "state" / PLAN
    if not plan_file.is_file():
        raise HubProblem(f"{folder} holds no hub that `agentlab hub demo` made ({plan_file} is "
                         "missing); name the folder you gave it with --folder.")
    if os.geteuid() != 0:
        raise HubProblem("Removing the hub's Unix users needs root: sudo agentlab hub demo "
                         f"--clean {folder}.")
    plan = HubPlan.model_validate_json(plan_file.read_text(encoding="utf-8"))
    gone = []
    for user in plan.made_users:
        # the hub's own users: nothing of anyone else's runs as them
        subprocess.run([_tool("pkill"), "-KILL", "-u", user], capture_output=True)
        subprocess.run([_tool("userdel"), "--remove", user], capture_output=True)
        subprocess.run([_tool("groupdel"), user], capture_output=True)
        gone.append(f"user {user} and its home")
    shutil.rmtree(folder)
    return [*gone, f"the folder {folder}"]


def _copy_instructor_package(plan: HubPlan, package: Path) -> None:
    """Copy the instructor package (from the folder `package`) where the instructor's group
    alone may read it, with the entry point through which agentlab_magics finds it
    (course/instructor.py)."""
    name = "agentlab_instructor"
    target = plan.instructor_files / name
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(package / name, target,
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    found = plan.instructor_files / f"{name}-0.dist-info"
    found.mkdir(exist_ok=True)
    (found / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0\n")
    (found / "entry_points.txt").write_text(f"[{ENTRY_POINTS}]\ncourse = {name}\n")
    group = pwd.getpwnam(plan.instructor).pw_gid
    for root, _, files in os.walk(plan.instructor_files):
        os.chown(root, 0, group)
        os.chmod(root, 0o750)
        for name in files:
            os.chown(os.path.join(root, name), 0, group)
            os.chmod(os.path.join(root, name), 0o640)


def _configuration(plan: HubPlan) -> None:
    """Each role's Jupyter configuration folder, and JupyterLab's settings for everyone."""
    common, student, instructor = (plan.jupyter(role) for role in
                                   ("common", "student", "instructor"))
    _write(common / "nbgrader_config.py",
           "c = get_config()  # noqa: F821\n"
           f"c.Exchange.root = {str(plan.exchange)!r}\n"
           'c.CourseDirectory.course_id = "agentlab"\n')
    _write(student / "labconfig" / "page_config.json",
           json.dumps({"disabledExtensions": dict.fromkeys(STUDENT_HIDDEN, True)}, indent=1))
    _write(student / "jupyter_server_config.json", json.dumps({"ServerApp": {
        "jpserver_extensions": {"nbgrader.server_extensions.formgrader": False}}}, indent=1))
    _write(plan.student_data / "kernels" / "python3" / "kernel.json", json.dumps(
        student_kernel(plan), indent=1))
    _write(instructor / "nbgrader_config.py",
           "c = get_config()  # noqa: F821\n"
           "# The course's own configuration: its folder, gradebook and the isolated grader.\n"
           f"load_subconfig({str(plan.course / 'nbgrader_config.py')!r})  # noqa: F821\n"
           "# Submissions graded here never see the instructor's home either.\n"
           f"c.ScoredOutside.hidden_paths = [{str(plan.home(plan.instructor))!r}]\n")
    _write(plan.lab_settings / "overrides.json", json.dumps({
        "@jupyterlab/apputils-extension:notification": {"fetchNews": "false",
                                                        "checkForUpdates": False}}, indent=1))


def student_kernel(plan: HubPlan) -> dict:
    """A student's Python kernelspec: the environment's own, with kernel_memory loaded."""
    return {"argv": [str(plan.prefix / "bin" / "python"), "-m", "ipykernel_launcher",
                     "-f", "{connection_file}",
                     "--IPKernelApp.extensions=agentlab_magics.hub.kernel_memory"],
            "display_name": "Python 3 (ipykernel)", "language": "python",
            "metadata": {"debugger": True}}


def _course(plan: HubPlan) -> None:
    """The instructor's course, written from the installed package where it is missing, with
    the students in its gradebook (the formgrader lists them by name)."""
    if not plan.course.exists():
        sys.path.insert(0, str(plan.instructor_package))
        try:
            init(plan.course)
        finally:
            sys.path.remove(str(plan.instructor_package))
        roster = plan.course / "students.csv"
        roster.write_text("id,last_name,first_name\n" + "".join(
            f"{student},{student},student\n" for student in plan.students), encoding="utf-8")
        Nbgrader({"AGENTLAB_EXCHANGE": str(plan.exchange)}).run(
            "db", "student", "import", str(roster), cwd=plan.course)
    owner = pwd.getpwnam(plan.instructor)
    own_tree(plan.course, owner.pw_uid, owner.pw_gid)


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _tool(name: str) -> str:
    return shutil.which(name, path=SYSTEM_PATH) or name
