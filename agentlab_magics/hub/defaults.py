"""A hub's defaults, in a module of their own: the command line's help shows them without
loading the plan's model."""

from pathlib import Path

FOLDER = Path("/srv/agentlab-hub")
PORT = 8000  # where people open the hub: the proxy, on 127.0.0.1
INSTRUCTOR = "instructor"
STUDENTS = ("ada", "grace")
