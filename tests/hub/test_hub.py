"""A term of the course on a real JupyterHub, in Debian's chromium, as its people use it.

`agentlab hub demo` (run as root from the shared environment, AGENTLAB_HUB_PYTHON, by default
/opt/agentlab-hub, which .ci/run makes) lays the hub out and starts JupyterHub on 127.0.0.1
with configurable-http-proxy. Then, in order, each test a step of the term:
the instructor releases lesson1 from the formgrader; two students fetch it from the
Assignments tab, write their harness (one right, one that sends only the new message), run
the notebook, `%%check` answers, and they submit; the instructor collects, autogrades each
submission and releases feedback; each student fetches feedback and reads the report of
their own work. A student then tries to reach the other's work through the file API and from
a kernel, and is refused. Nothing the browser asks for leaves 127.0.0.1, and every port the
hub and its servers listen on is on 127.0.0.1.

Every student's server is bounded (MEMORY_MB, one CPU) and idle servers are culled after
CULL_AFTER_S: a third student's kernel allocates past its share and dies with a sentence
while a neighbour's `%%check` succeeds, through the REST and kernel APIs (hub/visitor.py);
a fourth student's server, started as the hub comes up and never used, is culled while the
term plays.

The hub's users are real Unix accounts with names of this run's own (TEST_USERS), made by the
demo and removed after it by `agentlab hub demo --clean`, which stops only their processes:
two runs on one machine never touch each other's users or servers. Screenshots of every step
go to $AGENTLAB_SCREENSHOTS (hub-*.png). Without root, the shared environment,
configurable-http-proxy or chromium the tests skip, and say which; under CI (`CI` or
`AGENTLAB_REQUIRE_HUB`, which .ci/run sets) they fail with that sentence instead.
"""

from __future__ import annotations

import json
import os
import pwd
import re
import secrets
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote, urlparse

import pytest

from agentlab_magics.course import find_lab
from agentlab_magics.demos.hub import free_port
from agentlab_magics.hub.kernel_memory import sentence, share
from agentlab_magics.hub.visitor import Visitor
from tests.chromium import launch

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect
PlaywrightTimeout = playwright_api.TimeoutError

REPO = Path(__file__).resolve().parents[2]
HUB_PYTHON = Path(os.environ.get("AGENTLAB_HUB_PYTHON", "/opt/agentlab-hub/bin/python"))
RUN = secrets.token_hex(3)  # this run's users are its own
INSTRUCTOR = f"agentlab-tutor-{RUN}"  # a home short enough for a kernel's socket
RIGHT, WRONG = f"agentlab-ada-{RUN}", f"agentlab-grace-{RUN}"
HOG, IDLE = f"agentlab-hog-{RUN}", f"agentlab-idle-{RUN}"  # met through the APIs alone
TEST_USERS = (INSTRUCTOR, RIGHT, WRONG, HOG, IDLE)
MEMORY_MB = 768  # each student's server
CULL_AFTER_S = 60  # shorter than the term's play, longer than any pause of a page in it
WAIT_MS = 120_000  # a server's first start, a whole notebook run, an autograde
VIEWPORT = {"width": 1400, "height": 1000}
ASSIGNMENT = "lesson1"
FORGETFUL = "model.complete(system, [messages[-1]], [])"  # sends only the new message
REMEMBERS = ("The model remembers nothing, so the second question is sent with the first one "
             "before it.")


def _missing() -> str | None:
    """Why the hub cannot run here, or None."""
    if os.geteuid() != 0:
        return "the hub makes Unix users, so it needs root"
    if shutil.which("configurable-http-proxy") is None:
        return "no configurable-http-proxy: `npm install -g configurable-http-proxy`"
    if not HUB_PYTHON.exists():
        return (f"no shared hub environment at {HUB_PYTHON}: `/usr/bin/python3 -m venv "
                "/opt/agentlab-hub && /opt/agentlab-hub/bin/pip install '.[hub]'` (.ci/run "
                "does this)")
    probe = subprocess.run([str(HUB_PYTHON), "-c", "import jupyterhub, agentlab_magics.hub"],
                           capture_output=True)
    if probe.returncode:
        return f"{HUB_PYTHON} lacks jupyterhub or agentlab_magics[hub]"
    return None


@pytest.fixture(scope="module", autouse=True)
def pieces():
    reason = _missing()
    if reason and (os.environ.get("CI") or os.environ.get("AGENTLAB_REQUIRE_HUB")):
        pytest.fail(f"The hub test cannot run here: {reason}.")
    if reason:
        pytest.skip(reason)


@dataclass
class Hub:
    url: str
    password: str
    folder: Path
    process: subprocess.Popen
    contexts: list = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)  # requests for another host, refused
    pages: dict = field(default_factory=dict)  # user -> their JupyterLab page
    idle: Visitor | None = None  # a student whose server was started and left alone

    def plan(self) -> dict:
        return json.loads((self.folder / "state" / "plan.json").read_text())


def _answering(url: str, process: subprocess.Popen, log: Path) -> None:
    direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        try:
            with direct.open(f"{url}hub/api", timeout=2):
                return
        except OSError:
            time.sleep(0.3)
    pytest.fail(f"the hub did not answer at {url} (exit {process.poll()}):\n"
                f"{log.read_text(errors='replace')[-3000:]}")


@pytest.fixture(scope="module")
def hub() -> Iterator[Hub]:
    folder = Path(tempfile.mkdtemp(prefix="agentlab-hub-test-"))
    port, password = free_port(), secrets.token_urlsafe(12)
    log = folder.parent / f"{folder.name}.out"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [str(HUB_PYTHON), "-m", "agentlab_magics", "hub", "demo", "--folder", str(folder),
             "--port", str(port), f"--password={password}", "--instructor", INSTRUCTOR,
             "--students", ",".join((RIGHT, WRONG, HOG, IDLE)), "--memory", str(MEMORY_MB),
             "--cull-after", str(CULL_AFTER_S), "--instructor-package", str(REPO / "instructor")],
            stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}/"
    try:
        _answering(url, process, log)
        idle = Visitor(url, IDLE, password)
        idle.start_server()
        yield Hub(url, password, folder, process, idle=idle)
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)  # as Ctrl-C in its terminal
            try:
                process.wait(60)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
        said = log.read_text(errors="replace")
        cleaned = subprocess.run([str(HUB_PYTHON), "-m", "agentlab_magics", "hub", "demo",
                                  "--clean", str(folder)], capture_output=True, text=True)
        log.unlink(missing_ok=True)
    assert process.returncode == 0 and "The hub stopped" in said, said[-2000:]
    assert f"--clean {folder}` removes its users and folder" in said
    assert cleaned.returncode == 0 and not folder.exists(), cleaned.stderr
    assert not [user for user in TEST_USERS if _exists(user)], cleaned.stdout


def _exists(user: str) -> bool:
    try:
        pwd.getpwnam(user)
    except KeyError:
        return False
    return True


@pytest.fixture(scope="module")
def browser():
    with playwright_api.sync_playwright() as playwright:
        browser = launch(playwright)
        yield browser
        browser.close()


@pytest.fixture(scope="module")
def screenshots(tmp_path_factory) -> Path:
    folder = Path(os.environ.get("AGENTLAB_SCREENSHOTS") or tmp_path_factory.mktemp("shots"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def shoot(page, folder: Path, name: str) -> None:
    path = folder / f"hub-{name}.png"
    page.screenshot(path=path)
    assert path.read_bytes().startswith(b"\x89PNG")


def lab(hub: Hub, browser, user: str):
    """`user`'s JupyterLab, logged in through the hub's login page (their server started)."""
    if user in hub.pages:
        return hub.pages[user]
    context = browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(WAIT_MS)

    def guard(route):
        if urlparse(route.request.url).hostname == "127.0.0.1":
            route.continue_()
        else:
            hub.blocked.append(route.request.url)
            route.abort()

    context.route("**/*", guard)
    page = context.new_page()
    page.goto(f"{hub.url}hub/login")
    page.fill("#username_input", user)
    page.fill("#password_input", hub.password)
    page.click("#login_submit")
    page.wait_for_url(f"**/user/{user}/lab**")
    menu(page).wait_for()
    hub.pages[user] = page
    return page


def menu(page):
    return page.locator('div.lm-MenuBar-itemLabel:text-is("Nbgrader")')


def assignments_tab(page):
    """The Assignments tab, opened from the Nbgrader menu."""
    menu(page).click()
    page.locator('li[data-command="nbgrader:open-assignment-list"]').click()
    page.locator("#released_assignments_list").wait_for()
    return page


def listed(page, item):
    """`item` of the Assignments tab, once the tab lists it: nbgrader's list is read once when
    the tab opens, by a command that a busy machine can keep past its own limit (the list
    then stays empty), so the tab is refreshed, as a student would, until it shows."""
    deadline = time.monotonic() + WAIT_MS / 1000
    while time.monotonic() < deadline:
        try:
            item.wait_for(timeout=15_000)
            return item
        except PlaywrightTimeout:
            page.locator("#refresh_assignments_list").click()
    item.wait_for(timeout=1)
    return item


def formgrader(hub: Hub, browser, view: str = "manage_assignments"):
    page = lab(hub, browser, INSTRUCTOR)
    page.goto(f"{hub.url}user/{INSTRUCTOR}/formgrader/{view}")
    return page


def done(page) -> str:
    """Close the formgrader's result dialog; what it said."""
    dialog = page.locator(".modal.in").first
    dialog.wait_for()
    said = dialog.locator(".modal-title").inner_text() + ": " + dialog.locator(
        ".modal-body").inner_text()
    dialog.locator(".modal-footer button").first.click()
    expect(page.locator(".modal-backdrop")).to_have_count(0)  # faded out, not just closing
    return said


def assignment_row(page):
    return page.locator(f'tr:has(td.name a:text-is("{ASSIGNMENT}"))')


def test_the_instructor_releases_lesson1(hub, browser, screenshots):
    page = formgrader(hub, browser)
    row = assignment_row(page)
    row.locator("td.assign a").click()
    assert done(page).startswith("Success"), "generate"
    row.locator("td.release a").click()
    assert done(page).startswith("Success"), "release"
    expect(row.locator("td.status")).to_have_text("released")
    shoot(page, screenshots, "1-instructor-released")


def harness(student: str) -> str:
    reference = find_lab(ASSIGNMENT).reference
    if student == RIGHT:
        return reference
    wrong = reference.replace("model.complete(system, messages, [])", FORGETFUL)
    assert wrong != reference
    return wrong


def test_the_students_fetch_check_and_submit(hub, browser, screenshots):
    for student, summary in ((RIGHT, "7 of 7 tests passed"), (WRONG, "of 7 tests passed")):
        page = lab(hub, browser, student)
        menu(page).click()  # a student's Nbgrader menu: the Assignment List, no formgrader
        expect(page.locator("#jp-mainmenu-nbgrader")).to_have_text(re.compile(
            r"^\s*Assignment List\s*$"))
        page.keyboard.press("Escape")
        page = assignments_tab(page)
        listed(page, page.locator(
            '#released_assignments_list .item_status button:text-is("Fetch")')).click()
        page.locator("#fetched_assignments_list a.assignment-notebooks-link").click()
        shoot(page, screenshots, f"2-{student}-fetched")
        page.locator(f'#nbgrader-agentlab-{ASSIGNMENT} a:text-is("{ASSIGNMENT}")').click()
        page.locator("#jp-main-statusbar").get_by_text("Idle").wait_for()
        # opened, untouched, its kernel ready: it shows as saved (the release carries the
        # language_info the kernel reports, which JupyterLab would otherwise write in)
        expect(page.get_by_role("tab", name=f"{ASSIGNMENT}.ipynb")).not_to_have_class(
            re.compile(r"\bjp-mod-dirty\b"))
        cell = page.locator(".jp-Notebook .jp-Cell", has=page.locator(
            ".cm-content", has_text=f"%%check {ASSIGNMENT}"))
        cell.locator(".cm-content").click()
        page.keyboard.press("Control+a")
        page.keyboard.insert_text(f"%%check {ASSIGNMENT}\n{harness(student)}")
        page.keyboard.press("Escape")
        page.get_by_role("menuitem", name="Run", exact=True).click()
        page.get_by_role("menuitem", name="Run All Cells", exact=True).click()
        report = cell.locator(".al-summary")
        expect(report).to_contain_text(summary)
        if student == WRONG:
            expect(report).not_to_contain_text("7 of 7")
            expect(cell.locator(".al-test.al-outcome-failed", has_text=REMEMBERS)).to_be_visible()
        report.scroll_into_view_if_needed()
        shoot(page, screenshots, f"3-{student}-checked")
        # every cell has run (what a cell still running prints after the save makes the
        # notebook unsaved again)
        expect(page.locator(".jp-InputPrompt", has_text="[*]")).to_have_count(0)
        page.keyboard.press("Control+s")
        expect(page.locator(".jp-mod-dirty")).to_have_count(0)
        page.get_by_role("tab", name="Assignments").click()
        page.locator('#fetched_assignments_list .item_status button:text-is("Submit")').click()
        page.locator("#submitted_assignments_list .list_item .item_name").first.wait_for()
        shoot(page, screenshots, f"4-{student}-submitted")


def test_the_instructor_collects_autogrades_and_releases_feedback(hub, browser, screenshots):
    page = formgrader(hub, browser)
    assignment_row(page).locator("td.collect a").click()
    assert done(page).startswith("Success"), "collect"
    page = formgrader(hub, browser, f"manage_submissions/{ASSIGNMENT}")
    scores = {}
    for student in (RIGHT, WRONG):
        row = page.locator(f'tr:has(td.student-id:text-is("{student}"))')
        row.locator("td.autograde a").click()
        said = done(page)
        assert said.startswith("Success"), said
        assert "Applying preprocessor: ScoredOutside" in said  # the isolated grader
        expect(row.locator("td.status")).to_have_text("graded")
        scores[student] = row.locator("td.score").inner_text()
    shoot(page, screenshots, "5-instructor-autograded")
    assert scores[RIGHT] == "9 / 9"
    earned = float(scores[WRONG].split("/")[0])
    assert earned < 9, scores
    page = formgrader(hub, browser)
    for step in ("generate-feedback", "release-feedback"):
        assignment_row(page).locator(f"td.{step} a").click()
        assert done(page).startswith("Success"), step
    shoot(page, screenshots, "6-instructor-feedback-released")


def feedback_page(hub: Hub, browser, student: str):
    """The student fetches feedback in the Assignments tab, follows "view feedback" to its
    folder, and opens the page in a browser tab of its own (as "Open in New Browser Tab")."""
    page = assignments_tab(lab(hub, browser, student))
    page.locator('#submitted_assignments_list button:text-is("Fetch Feedback")').click()
    page.locator('#submitted_assignments_list a:text("(view feedback)")').click()
    listing = page.locator(".jp-DirListing-item", has_text=f"{ASSIGNMENT}.html")
    listing.wait_for()
    found = sorted((Path(pwd.getpwnam(student).pw_dir) / ASSIGNMENT / "feedback").glob(
        f"*/{ASSIGNMENT}.html"))
    assert len(found) == 1, found
    relative = found[0].relative_to(pwd.getpwnam(student).pw_dir)
    view = page.context.new_page()
    view.goto(f"{hub.url}user/{student}/files/{quote(str(relative))}")
    return view


def test_each_student_reads_the_report_of_their_own_work(hub, browser, screenshots):
    for student in (RIGHT, WRONG):
        view = feedback_page(hub, browser, student)
        body = view.locator("body")
        expect(body).to_contain_text("01 The conversation is a list")
        if student == RIGHT:
            expect(body).not_to_contain_text(FORGETFUL)
            expect(body).not_to_contain_text("tests failed")
        else:
            expect(body).to_contain_text(FORGETFUL)
            expect(body).to_contain_text(REMEMBERS)
        view.get_by_text("01 The conversation is a list:").first.scroll_into_view_if_needed()
        shoot(view, screenshots, f"7-{student}-feedback")
        view.close()


PROBE = """\
import json, os
def tried(path):
    try:
        os.listdir(path) if os.path.isdir(path) else open(path, 'rb').read(1)
        return 'read'
    except PermissionError:
        return 'refused'
    except FileNotFoundError:
        return 'missing'
print('PROBE ' + json.dumps({name: tried(path) for name, path in PATHS.items()}))
"""


def test_a_student_cannot_reach_another_students_work(hub, browser, screenshots):
    plan = hub.plan()
    other = Path(pwd.getpwnam(WRONG).pw_dir)
    exchange = Path(plan["folder"]) / "exchange" / "agentlab"
    course = Path(pwd.getpwnam(INSTRUCTOR).pw_dir) / "agentlab"
    paths = {
        "the other's home": other,
        "the other's notebook": other / ASSIGNMENT / f"{ASSIGNMENT}.ipynb",
        "the other's feedback": next((other / ASSIGNMENT / "feedback").glob("*/*.html")),
        "the exchange's submissions": exchange / "inbound",
        "the exchange's feedback": exchange / "feedback",
        "the course's submissions": course / "submitted" / WRONG,
        "the course's gradebook": course / "gradebook.db",
        "the held-back tests": Path(plan["folder"]) / "instructor",
        "the hub's database": Path(plan["folder"]) / "state" / "jupyterhub.sqlite",
    }
    for path in paths.values():
        assert path.exists(), path
    page = lab(hub, browser, RIGHT)
    # Through the file API: the other's server refuses this student's login, and this
    # student's own server serves nothing outside their home.
    for url in (f"user/{WRONG}/api/contents/{ASSIGNMENT}",
                f"user/{WRONG}/files/{ASSIGNMENT}/{ASSIGNMENT}.ipynb",
                f"user/{RIGHT}/api/contents/..%2F{WRONG}",
                f"user/{RIGHT}/files/..%2F{WRONG}/{ASSIGNMENT}/{ASSIGNMENT}.ipynb"):
        answer = page.request.get(hub.url + url, max_redirects=0)
        assert answer.status in (302, 403, 404), (url, answer.status)
        assert b"nbformat" not in answer.body(), url
    # From a kernel: the student's own notebook, a new cell at its end.
    page.get_by_role("tab", name=f"{ASSIGNMENT}.ipynb").click()
    page.locator(".jp-Notebook .jp-Cell").last.click()
    page.keyboard.press("Escape")
    page.keyboard.press("b")
    page.keyboard.press("Enter")
    page.keyboard.insert_text(
        f"PATHS = {json.dumps({k: str(v) for k, v in paths.items()})}\n" + PROBE)
    page.keyboard.press("Shift+Enter")
    printed = page.locator(".jp-OutputArea-output", has_text="PROBE ").last
    printed.wait_for()
    printed.scroll_into_view_if_needed()
    shoot(page, screenshots, "8-student-refused")
    found = json.loads(re.search(r"PROBE (\{.*\})", printed.inner_text()).group(1))
    assert found == dict.fromkeys(paths, "refused"), found


def _descendants(root: int) -> set[int]:
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1]
                                               .split()[1])
            except (OSError, IndexError, ValueError):
                continue
    found, grew = {root}, True
    while grew:
        grew = False
        for pid, parent in parents.items():
            if parent in found and pid not in found:
                found.add(pid)
                grew = True
    return found


def test_nothing_leaves_this_machine(hub):
    assert hub.pages, "the term ran"
    assert hub.blocked == []
    mine = _descendants(hub.process.pid)
    listening = subprocess.run(["ss", "-Hltnp"], capture_output=True, text=True).stdout
    addresses = [line.split()[3] for line in listening.splitlines()
                 if any(int(pid) in mine for pid in re.findall(r"pid=(\d+)", line))]
    assert len(addresses) >= 4, listening  # the proxy and its API, the hub, the servers
    assert all(address.startswith("127.0.0.1:") for address in addresses), addresses


GRAB = "chunks = [b'x' * (32 << 20) for _ in range(64)]"  # 2 GB, touched 32 MB at a time


def _servers_cgroup(user: str, controller: str) -> Path:
    """The cgroup of `user`'s JupyterLab server in `controller`, as the kernel reports it."""
    uid = pwd.getpwnam(user).pw_uid
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and entry.stat().st_uid == uid and \
                b"jupyterhub-singleuser" in (entry / "cmdline").read_bytes():
            found = next(line for line in (entry / "cgroup").read_text().splitlines()
                         if controller in line.split(":")[1].split(","))
            return Path("/sys/fs/cgroup", controller, found.split(":", 2)[2].lstrip("/"))
    raise AssertionError(f"no server of {user} runs")


def test_a_kernel_past_its_memory_dies_alone_and_a_neighbours_check_succeeds(hub):
    hog, neighbour = Visitor(hub.url, HOG, hub.password), Visitor(hub.url, RIGHT, hub.password)
    hog.start_server()
    neighbour.start_server()
    memory, cpu = _servers_cgroup(HOG, "memory"), _servers_cgroup(HOG, "cpu")
    assert memory.name == cpu.name == f"agentlab-{HOG}"
    assert (memory / "memory.limit_in_bytes").read_text().strip() == str(MEMORY_MB << 20)
    assert (cpu / "cpu.cfs_quota_us").read_text().strip() == "100000"  # 1 CPU: 100 of 100 ms
    hogging, checking = hog.kernel(), neighbour.kernel()
    assert checking.run("%load_ext agentlab_magics").error is None
    with ThreadPoolExecutor(2) as both:
        grabbed = both.submit(hogging.run, GRAB)
        checked = both.submit(checking.run, f"%%check {ASSIGNMENT}\n{harness(RIGHT)}")
        grabbed, checked = grabbed.result(), checked.result()
    oom = (memory / "memory.oom_control").read_text()
    assert grabbed.died, grabbed
    assert sentence(share(MEMORY_MB << 20)) in grabbed.text, (grabbed, oom)
    assert "oom_kill 0" in oom  # the kernel ended itself: the OOM killer chose no process
    assert not checked.died and "7 of 7 tests passed" in checked.text, checked
    assert grabbed.seconds < 60 and checked.seconds < 60
    # The server that held the kernel, and the hub, go on.
    assert hog.servers()[""]["ready"]
    assert hog.server("GET", "api/status").json()["kernels"] >= 1
    assert hub.process.poll() is None
    hogging.close()
    checking.close()


def test_the_culler_stops_a_server_left_idle(hub):
    assert hub.idle is not None
    deadline = time.monotonic() + 3 * CULL_AFTER_S
    while hub.idle.servers() and time.monotonic() < deadline:
        time.sleep(2)
    assert hub.idle.servers() == {}
    log = (hub.folder / "state" / "jupyterhub.log").read_text(errors="replace")
    assert f"Culling server {IDLE}" in log, log[-3000:]
    assert not [name for name in (RIGHT, WRONG, HOG) if f"Culling server {name} " in log]
