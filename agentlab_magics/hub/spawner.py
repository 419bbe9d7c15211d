"""BoundedSpawner: JupyterHub's LocalProcessSpawner, with each server held to the spawner's
mem_limit and cpu_limit by a cgroup of its own, or by rlimits where cgroups are not writable
(bounds.py says which this machine gives), and on a port no other server of the hub holds.
A server with neither limit set runs as LocalProcessSpawner runs it."""

from __future__ import annotations

import asyncio
from typing import ClassVar

from jupyterhub.spawner import LocalProcessSpawner
from jupyterhub.utils import random_port
from traitlets import Unicode

from agentlab_magics.hub.bounds import ServerGroup, hold_data, mechanism


class BoundedSpawner(LocalProcessSpawner):
    """The server's process enters its cgroup (or takes its rlimit) before it becomes its
    user, so the server, its kernels and all they start are held from their first
    instruction, and none of them may lift the limits."""

    mechanism = Unicode(help='"cgroup" or "rlimit" (default: what bounds.mechanism finds)'
                        ).tag(config=True)

    def _holds(self) -> str | None:
        if not (self.mem_limit or self.cpu_limit):
            return None
        return self.mechanism or mechanism()

    def make_preexec_fn(self, name):
        become_user = super().make_preexec_fn(name)
        holds, group, memory = self._holds(), ServerGroup(name), self.mem_limit

        def preexec() -> None:
            if holds == "cgroup":
                group.join()
            elif holds == "rlimit" and memory:
                hold_data(memory)
            become_user()

        return preexec

    async def start(self):
        if self._holds() == "cgroup":
            ServerGroup(self.user.name).make(self.mem_limit, self.cpu_limit)
        self.port = self._own_port()
        return await super().start()

    async def stop(self, now=False):
        await super().stop(now=now)
        await self._gone()

    async def poll(self):
        status = await super().poll()
        if status is not None:  # it ended by itself: the hub may never call stop
            await self._gone()
        return status

    async def _gone(self) -> None:
        """The server has ended: its port is free, and its cgroup goes with what it left, on a
        thread (emptying it waits for its last processes to go, up to seconds, and the hub's
        event loop serves every other user meanwhile)."""
        BoundedSpawner.ports.discard(self.port)
        if self._holds() == "cgroup":
            await asyncio.to_thread(ServerGroup(self.user.name).remove)

    # The ports of this hub's servers, from their start to their stop. random_port alone may
    # give two servers that start at once the same port (it is free until one binds it); the
    # hub takes any answer there, even another server's 404, for the second server's, and
    # routes its user to the first. Seen with forty students starting within seconds.
    ports: ClassVar[set[int]] = set()

    def _own_port(self) -> int:
        """A free port no other server of this hub holds or is about to bind (a new one at
        each start, as the port a stopped server had may be anyone's by now)."""
        port = 0
        while port == 0 or port in BoundedSpawner.ports:
            port = random_port()
        BoundedSpawner.ports.add(port)
        return port
