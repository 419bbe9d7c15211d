"""What one hub is made of: where it lives, its port, its users and their password."""

from __future__ import annotations

import pwd
import secrets
import sys
from pathlib import Path

from pydantic import BaseModel, Field

from agentlab_magics.hub import defaults

PLAN = "plan.json"  # in the hub's state folder: what template/jupyterhub_config.py reads
COURSE_FOLDER = "agentlab"  # the course, in the instructor's home


class HubPlan(BaseModel):
    """One hub. Every path the hub's users need is derived from `folder` and the homes."""

    folder: Path = defaults.FOLDER
    port: int = defaults.PORT
    hub_port: int = 0  # the hub's own API, and the proxy's; 0: a free port, chosen at start
    proxy_api_port: int = 0
    instructor: str = defaults.INSTRUCTOR
    students: list[str] = list(defaults.STUDENTS)
    password: str = Field(default_factory=lambda: secrets.token_urlsafe(9))
    instructor_package: Path | None = None  # the folder holding agentlab_instructor
    prefix: Path = Path(sys.prefix)  # the environment every user's server runs from
    proxy: Path | None = None  # configurable-http-proxy, as the pre-start check found it
    made_users: list[str] = []  # the users this hub made (and `--clean` removes)
    # each student's server (its kernels and checks with it); the instructor's is not held,
    # since grading from it runs each submission under limits of its own
    memory_mb: int = Field(default=defaults.MEMORY_MB, gt=0)
    cpus: float = Field(default=defaults.CPUS, gt=0)
    cull_after_s: int = Field(default=defaults.CULL_AFTER_S, gt=0)  # idle servers are stopped

    @property
    def users(self) -> list[str]:
        return [self.instructor, *self.students]

    @property
    def state(self) -> Path:
        """JupyterHub's own files (its database, cookie secret, log, this plan): root's alone."""
        return self.folder / "state"

    @property
    def exchange(self) -> Path:
        return self.folder / "exchange"

    @property
    def instructor_files(self) -> Path:
        """Where the instructor package is copied: readable by the instructor alone."""
        return self.folder / "instructor"

    def jupyter(self, role: str) -> Path:
        """The Jupyter configuration folder of a role: "common", "student" or "instructor"."""
        return self.folder / "jupyter" / role

    @property
    def student_data(self) -> Path:
        """The first folder of a student's JUPYTER_PATH: the kernelspec that bounds kernels."""
        return self.folder / "jupyter" / "student-data"

    @property
    def lab_settings(self) -> Path:
        return self.folder / "lab-settings"

    def home(self, user: str) -> Path:
        """`user`'s home on this machine (KeyError for a user it does not have)."""
        return Path(pwd.getpwnam(user).pw_dir)

    @property
    def course(self) -> Path:
        return self.home(self.instructor) / COURSE_FOLDER
