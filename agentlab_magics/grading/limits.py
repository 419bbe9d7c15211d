"""The weakest sandbox, where no namespace can be made: `python -m agentlab_magics.grading.limits
SCRATCH -- COMMAND...` sets the jail's resource limits, a session of its own and the scratch
folder as home, then becomes the command."""

from __future__ import annotations

import os
import sys

from agentlab_magics.grading.jail import limit, settle_in

if __name__ == "__main__":
    scratch, command = sys.argv[1], sys.argv[3:]
    os.setsid()
    limit()
    settle_in(scratch)
    os.execvp(command[0], command)
