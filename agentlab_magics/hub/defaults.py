"""A hub's defaults, in a module of their own: the command line's help shows them without
loading the plan's model."""

from pathlib import Path

FOLDER = Path("/srv/agentlab-hub")
PORT = 8000  # where people open the hub: the proxy, on 127.0.0.1
INSTRUCTOR = "instructor"
STUDENTS = ("ada", "grace")
MEMORY_MB = 1024  # each student's server, its kernels and checks together
CPUS = 1.0
CULL_AFTER_S = 3600  # a server idle this long is stopped (its files stay)
