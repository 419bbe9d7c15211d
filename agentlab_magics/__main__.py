"""`python -m agentlab_magics` is the `agentlab` command."""

import sys

from agentlab_magics.cli import entry

sys.exit(entry())
