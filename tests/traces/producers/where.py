"""Where the make_*.py scripts write: $TRACES_OUT when it is set (the suite's run of them),
else the fixtures folder beside this one."""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.environ.get("TRACES_OUT") or os.path.join(HERE, "..", "fixtures")
