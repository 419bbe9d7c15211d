"""Two runs of the seed's first case, side by side in the diff tests: their loop logs the
unknown tool and moves on; yours answers it and goes on to the answer."""

from agentlab_magics import lab

TYPO = lab.call("raed", {"path": "config.py"}, id="c1")
READ = lab.call("read", {"path": "config.py"}, id="c2")
QUESTION = lab.user("What port does config.py use?")
THEIRS = [QUESTION, lab.reply(TYPO), lab.fail("400 invalid_request: call c1 has no result")]
YOURS = [QUESTION, lab.reply(TYPO), lab.tool_result(TYPO, "Tool raed not found", is_error=True),
         lab.reply(READ), lab.tool_result(READ, "PORT = 9090"), lab.say("The port is 9090.")]
