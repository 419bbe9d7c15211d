"""One person at the hub, through its REST API and their server's APIs, as their browser goes:
log in, start the server, fetch and submit through nbgrader's Assignments tab, open a kernel
and run cells in it. The load bench (bench/bench_hub.py) and the hub's tests drive students so.

Every request goes to the hub's address alone (no proxy of the environment's), with the token
the person made for themselves after logging in, as JupyterLab's own requests carry theirs.
"""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from urllib.parse import urlparse

import requests
import websocket

COURSE = "agentlab"
WAIT_S = 120  # a server's start, a cell's run


class VisitProblem(Exception):
    """The hub or a server answered otherwise than a browser expects; the message says what."""


@dataclass
class Ran:
    """What one cell showed: its outputs' text, its error's name, and whether its kernel died."""

    text: str = ""
    error: str | None = None
    died: bool = False
    seconds: float = 0.0


class Visitor:
    """A person logged in to the hub at `url` (ending in /) with their own API token."""

    def __init__(self, url: str, name: str, password: str):
        self.url, self.name = url, name
        self.http = requests.Session()
        self.http.trust_env = False  # the hub is on this machine: no proxy between
        self._ok(self.http.get(f"{url}hub/login"), "the login page")
        self._ok(self.http.post(f"{url}hub/login", data={
            "username": name, "password": password, "_xsrf": self._xsrf()},
            allow_redirects=False), "logging in", expect=(302,))
        self._ok(self.http.get(f"{url}hub/home"), "the home page")  # a session's own _xsrf
        made = self.http.post(f"{url}hub/api/users/{name}/tokens", json={"note": "visitor"},
                              headers={"X-XSRFToken": self._xsrf()})
        self.token = self._ok(made, "making a token").json()["token"]
        self.http.headers["Authorization"] = f"token {self.token}"

    def start_server(self) -> float:
        """Start this person's server and wait until it answers; the seconds it took."""
        started = time.monotonic()
        self._ok(self.http.post(f"{self.url}hub/api/users/{self.name}/server"),
                 "starting the server", expect=(201, 202, 400))  # 400: running already
        while not self.servers().get("", {}).get("ready"):
            if time.monotonic() - started > WAIT_S:
                raise VisitProblem(f"{self.name}'s server was not ready after {WAIT_S} s")
            time.sleep(0.25)
        return time.monotonic() - started

    def servers(self) -> dict:
        """This person's servers, as the hub lists them ({} when none runs)."""
        found = self.http.get(f"{self.url}hub/api/users/{self.name}")
        return self._ok(found, "reading the user").json().get("servers") or {}

    def server(self, method: str, path: str, **given) -> requests.Response:
        """A request to this person's server (`path` below /user/NAME/)."""
        answer = self.http.request(method, f"{self.url}user/{self.name}/{path}",
                                   timeout=WAIT_S, **given)
        return self._ok(answer, f"{method} {path}", expect=(200, 201, 204))

    def assignment(self, action: str, assignment: str) -> dict:
        """fetch, submit or fetch_feedback, as the Assignments tab's button does."""
        said = self.server("POST", f"assignments/{action}", data={
            "course_id": COURSE, "assignment_id": assignment}).json()
        if not said.get("success"):
            raise VisitProblem(f"{self.name}'s {action} of {assignment} failed: "
                               f"{said.get('value')}")
        return said

    def kernel(self) -> Kernel:
        """A new Python kernel in this person's server, connected as a notebook is."""
        kernel_id = self.server("POST", "api/kernels", json={"name": "python3"}).json()["id"]
        address = urlparse(self.url)._replace(scheme="ws").geturl()
        channel = websocket.create_connection(
            f"{address}user/{self.name}/api/kernels/{kernel_id}/channels",
            header=[f"Authorization: token {self.token}"], timeout=WAIT_S,
            http_no_proxy=["127.0.0.1", "localhost"])
        return Kernel(kernel_id, channel)

    def _xsrf(self) -> str:
        """The newest _xsrf cookie the hub set (for /hub/ alone, once logged in)."""
        return [cookie.value for cookie in self.http.cookies if cookie.name == "_xsrf"][-1] or ""

    def _ok(self, answer: requests.Response, what: str, expect=(200, 201)):
        if answer.status_code not in expect:
            raise VisitProblem(f"{self.name}: {what} answered {answer.status_code}: "
                               f"{answer.text[:300]}")
        return answer


@dataclass
class Kernel:
    """A kernel's channels over one websocket, as JupyterLab holds them."""

    id: str
    channel: websocket.WebSocket
    session: str = field(default_factory=lambda: uuid.uuid4().hex)

    def run(self, code: str) -> Ran:
        """Run `code` as a notebook cell; what it showed, once the kernel is idle again or
        has died."""
        started = time.monotonic()
        msg_id = uuid.uuid4().hex
        self.channel.send(json.dumps({
            "header": {"msg_id": msg_id, "msg_type": "execute_request", "username": "",
                       "session": self.session, "version": "5.3",
                       "date": datetime.now(UTC).isoformat()},
            "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
            "content": {"code": code, "silent": False, "store_history": True,
                        "user_expressions": {}, "allow_stdin": False, "stop_on_error": True}}))
        ran = Ran()
        while True:
            message = json.loads(self.channel.recv())
            content, kind = message.get("content", {}), message.get("msg_type")
            if kind == "status" and content.get("execution_state") in ("restarting", "dead"):
                ran.died = True
                break
            if message.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            if kind == "stream":
                ran.text += content["text"]
            elif kind in ("display_data", "update_display_data", "execute_result"):
                ran.text += content.get("data", {}).get("text/plain", "") + "\n"
            elif kind == "error":
                ran.error = content["ename"]
            elif kind == "status" and content.get("execution_state") == "idle":
                break
        ran.seconds = time.monotonic() - started
        return ran

    def close(self) -> None:
        self.channel.close()
