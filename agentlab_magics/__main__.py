"""`python -m agentlab_magics` is the `agentlab` command."""

import sys

from agentlab_magics.cli import main

sys.exit(main())
