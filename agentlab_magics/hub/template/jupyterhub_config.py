"""JupyterHub's configuration for the agentlab course on one machine (JupyterHub 5 or 6).

`agentlab hub demo` lays the hub out (agentlab_magics/hub/recipe.py) and starts JupyterHub with
this file and AGENTLAB_HUB_PLAN naming the hub's plan.json: its folder, ports, users and
password. Everything listens on 127.0.0.1 only.

What a real hub changes: the authenticator (PAM for the machine's own accounts, or an OAuth
provider through oauthenticator) and the address (a public one behind TLS). The rest, users'
servers started as their own Unix users from one shared environment, the exchange, and the
per-role configuration, is what The Littlest JupyterHub does too (docs/instructors.md).
"""

import json
import os

from agentlab_magics.hub.bounds import mechanism
from agentlab_magics.hub.plan import HubPlan

c = get_config()  # noqa: F821 (JupyterHub injects get_config when it loads this file)

with open(os.environ["AGENTLAB_HUB_PLAN"], encoding="utf-8") as file:
    plan = HubPlan.model_validate(json.load(file))

# -- where it listens: this machine only -----------------------------------------------------
c.JupyterHub.ip = "127.0.0.1"
c.JupyterHub.port = plan.port
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = plan.hub_port
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{plan.proxy_api_port}"
if plan.proxy is not None:  # the proxy the pre-start check found, wherever npm put it
    c.ConfigurableHTTPProxy.command = [str(plan.proxy)]
c.ConfigurableHTTPProxy.pid_file = str(plan.state / "proxy.pid")
c.JupyterHub.db_url = f"sqlite:///{plan.state / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(plan.state / "jupyterhub_cookie_secret")
c.JupyterHub.cleanup_servers = True  # Ctrl-C stops every user's server too

# -- who may log in: a local demo's shared password ------------------------------------------
# A real hub uses "pam" (the machine's accounts) or an OAuthenticator instead.
c.JupyterHub.authenticator_class = "dummy"
c.DummyAuthenticator.password = plan.password
c.Authenticator.allowed_users = set(plan.users)
c.Authenticator.admin_users = {plan.instructor}

# -- each user's server: JupyterLab, as that Unix user, from the shared environment ----------
# A student's server is held to its memory and CPU by what this machine gives (bounds.py):
# a systemd unit, a cgroup of its own, or rlimits.
HOLDS = mechanism()
if HOLDS == "systemd":
    c.JupyterHub.spawner_class = "systemdspawner.SystemdSpawner"
else:
    c.JupyterHub.spawner_class = "agentlab_magics.hub.spawner.BoundedSpawner"
    c.BoundedSpawner.mechanism = HOLDS
c.Spawner.cmd = [str(plan.prefix / "bin" / "jupyterhub-singleuser")]
c.Spawner.default_url = "/lab"
c.Spawner.notebook_dir = "~"
c.Spawner.start_timeout = 120
c.Spawner.http_timeout = 120
# A kernel talks to its server over Unix sockets in its user's runtime folder, not TCP ports:
# a server picks a kernel's five ports free and lets them go for the kernel to bind, and with
# a class's kernels, servers and connections all taking ports meanwhile, another process may
# bind one first; the kernel then dies at each restart too (the ports are kept across them).
# A socket's path is the user's home and 79 characters, within a Unix socket's 107: homes of
# up to 28 characters (/home/ and a name of up to 22; recipe.problems says so before a start).
c.Spawner.args = [
    "--KernelManager.transport=ipc",
    "--LabApp.news_url=None",
    "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
    "--LabApp.extension_manager=readonly",
    f"--LabApp.app_settings_dir={plan.lab_settings}",
]


def role_environment(spawner) -> None:
    """The user's role decides their Jupyter configuration: the instructor's has the course
    and the formgrader, and the instructor package on PYTHONPATH; a student's has neither."""
    instructor = spawner.user.name == plan.instructor
    role = "instructor" if instructor else "student"
    spawner.environment.update({
        "JUPYTER_CONFIG_PATH": os.pathsep.join(
            str(plan.jupyter(name)) for name in (role, "common")),
        "AGENTLAB_EXCHANGE": str(plan.exchange),
        "PATH": f"{plan.prefix / 'bin'}:/usr/local/bin:/usr/bin:/bin",
    })
    if instructor:
        spawner.environment["PYTHONPATH"] = str(plan.instructor_files)
    else:
        spawner.environment["JUPYTER_PATH"] = str(plan.student_data)  # the bounded kernel
        spawner.mem_limit = plan.memory_mb << 20
        spawner.cpu_limit = plan.cpus


c.Spawner.pre_spawn_hook = role_environment

# -- idle servers stop: jupyterhub-idle-culler, as a hub service -----------------------------
# Activity (the proxy's, each server's own) reaches the hub at least as often as the culler
# looks, so a server in use is never taken for an idle one.
CULL_EVERY_S = max(1, min(300, plan.cull_after_s // 3))
c.JupyterHub.last_activity_interval = CULL_EVERY_S
c.Spawner.environment = {"JUPYTERHUB_ACTIVITY_INTERVAL": str(CULL_EVERY_S)}
c.JupyterHub.services = [{
    "name": "idle-culler",
    "command": [str(plan.prefix / "bin" / "python"), "-m", "jupyterhub_idle_culler",
                f"--timeout={plan.cull_after_s}", f"--cull-every={CULL_EVERY_S}"],
}]
c.JupyterHub.load_roles = [{
    "name": "idle-culler",
    "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"],
    "services": ["idle-culler"],
}]
