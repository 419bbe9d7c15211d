"""Plausible wrong harnesses: each is a lab's reference with one edit a student might make.

Every mutant must fail at least one test of its lab, and every test of a lab's own, held-back
ones included, must fail at least one of the lab's mutants (an earlier lesson's test that still
holds is proven by that lesson's); the references must pass every test.
The liars (LIARS, at the end) are harnesses whose values lie about ==: they must pass no test.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from agentlab_magics.demos.students import Edit


@dataclass(frozen=True)
class Mutant:
    """`old` replaced by `new` (exactly once) in the reference of `lab`."""

    name: str
    lab: str
    old: str
    new: str

    def apply(self, reference: str) -> str:
        """The reference with the edit made, by the demo's own Edit (ValueError unless once)."""
        return Edit(f"{self.name} ({self.lab})", self.old, self.new).apply(reference)


MUTANTS: list[Mutant] = [
    # lesson 3: the loop
    Mutant("the loop believes the label", "lesson3",
           "        calls = tool_calls(reply)\n        if not calls:",
           "        calls = tool_calls(reply)\n        if reply[\"stop_reason\"] != \"toolUse\":"),
    Mutant("one turn only, like chat", "lesson3",
           "    while True:\n", "    for _ in range(1):\n"),
    Mutant("a loop with a turn limit of its own", "lesson3",
           "    while True:\n", "    for _ in range(10):\n"),
    Mutant("a loop with a generous turn limit of its own", "lesson3",
           "    while True:\n", "    for _ in range(20):\n"),
    Mutant("the copied list", "lesson3",
           "    messages.append(user_message(prompt))\n    while True:",
           "    messages = list(messages)\n    messages.append(user_message(prompt))\n    while True:"),
    Mutant("the chat that sends only what is new", "lesson3",
           "reply = model.complete(system, messages, tool_specs(tools))",
           "reply = model.complete(system, messages[-1:], tool_specs(tools))"),
    Mutant("the reversed results", "lesson3",
           "        for call in calls:\n", "        for call in reversed(calls):\n"),
    Mutant("only the first call is answered", "lesson3",
           "        for call in calls:\n", "        for call in calls[:1]:\n"),
    Mutant("returns the words, not the reply", "lesson3",
           "        if not calls:\n            return reply",
           "        if not calls:\n            return text_of(reply)"),
    Mutant("the final reply is not kept", "lesson3",
           "        messages.append(reply)\n        calls = tool_calls(reply)\n        if not calls:\n            return reply",
           "        calls = tool_calls(reply)\n        if not calls:\n            return reply\n        messages.append(reply)"),
    Mutant("no system prompt", "lesson3",
           "reply = model.complete(system, messages,", "reply = model.complete(\"\", messages,"),
    Mutant("a result without its tool_name and is_error", "lesson3",
           '"tool_name": call["name"], "content": content, "is_error": False}',
           '"content": content}'),
    Mutant("a result that is the user's message", "lesson3",
           '{"role": "toolResult", "tool_call_id": call["id"],\n'
           '                             "tool_name": call["name"], "content": content, '
           '"is_error": False}',
           '{"role": "user", "content": content}'),
    Mutant("a result without its tool_call_id", "lesson3",
           '{"role": "toolResult", "tool_call_id": call["id"],\n'
           '                             "tool_name"', '{"role": "toolResult",\n'
                                                      '                             "tool_name"'),
]

# unit ch03-a: admission (the seed's own list of wrong answers)
MUTANTS += [
    Mutant(">= for > at the money boundary", "ch03-a",
           'case["spent"] + case["next_cost"] > case["budget"]',
           'case["spent"] + case["next_cost"] >= case["budget"]'),
    Mutant("cost checked before calls", "ch03-a",
           '''    if case["used_calls"] >= case["max_calls"]:
        return "MODEL_CALL_LIMIT"
    if case["spent"] + case["next_cost"] > case["budget"]:
        return "MODEL_COST_LIMIT"''',
           '''    if case["spent"] + case["next_cost"] > case["budget"]:
        return "MODEL_COST_LIMIT"
    if case["used_calls"] >= case["max_calls"]:
        return "MODEL_CALL_LIMIT"'''),
    Mutant("a constant answer", "ch03-a",
           '    if case["used_calls"] >= case["max_calls"]:\n        return "MODEL_CALL_LIMIT"\n',
           '    return "CALL"\n'),
    Mutant("mutates its input", "ch03-a",
           '    if case["used_calls"] >= case["max_calls"]:',
           '    case["used_calls"] += 0 if case.pop("budget", None) is None else 0\n'
           '    case["budget"] = case.get("budget", 10**9)\n'
           '    if case["used_calls"] >= case["max_calls"]:'),
    Mutant("transfer: >= at the boundary", "ch03-a-transfer",
           'state["spent"] + state["next_cost"] > state["budget"]',
           'state["spent"] + state["next_cost"] >= state["budget"]'),
    Mutant("transfer: ignores the varying estimate", "ch03-a-transfer",
           'state["spent"] + state["next_cost"] > state["budget"]',
           'state["spent"] + 2 > state["budget"]'),
    Mutant("transfer: the starter's constant", "ch03-a-transfer",
           '    if state["calls"] >= state["max_calls"]:\n        return "CALL_LIMIT"\n',
           '    return "CALL"\n'),
]

# lesson 1: the conversation is a list (user_message, text_of, chat)
MUTANTS += [
    Mutant("the chat that sends only the new message", "lesson1",
           "    reply = model.complete(system, messages, [])",
           "    reply = model.complete(system, messages[-1:], [])"),
    Mutant("the chat that does not keep the reply", "lesson1",
           "    messages.append(reply)\n    return reply", "    return reply"),
    Mutant("the chat that works on a copy", "lesson1",
           "    messages.append(user_message(text))\n",
           "    messages = messages + [user_message(text)]\n"),
    Mutant("the chat that returns the words", "lesson1",
           "    messages.append(reply)\n    return reply",
           "    messages.append(reply)\n    return text_of(reply)"),
    Mutant("the chat with no system prompt", "lesson1",
           "model.complete(system, messages, [])", "model.complete(\"\", messages, [])"),
    Mutant("the chat that sends its own system prompt", "lesson1",
           "model.complete(system, messages, [])", "model.complete(SYSTEM, messages, [])"),
    Mutant("text_of that includes the call names", "lesson1",
           '"".join(block["text"] for block in message["content"] if block["type"] == "text")',
           '"".join(block.get("text") or block.get("name", "") for block in message["content"])'),
    Mutant("text_of that reads only the first block", "lesson1",
           '"".join(block["text"] for block in message["content"] if block["type"] == "text")',
           'message["content"][0].get("text", "")'),
    Mutant("text_of that puts spaces between blocks", "lesson1",
           '"".join(block["text"] for block in message["content"] if block["type"] == "text")',
           '" ".join(block["text"] for block in message["content"] if block["type"] == "text")'),
    Mutant("user_message with content blocks", "lesson1",
           'return {"role": "user", "content": text}',
           'return {"role": "user", "content": [{"type": "text", "text": text}]}'),
    Mutant("user_message that trims what was typed", "lesson1",
           'return {"role": "user", "content": text}',
           'return {"role": "user", "content": text.strip()}'),
    Mutant("the chat that sends the last three messages", "lesson1",
           "    reply = model.complete(system, messages, [])",
           "    reply = model.complete(system, messages[-3:], [])"),
]

# lesson 2: tool calls and results (tool_calls, tool_specs)
MUTANTS += [
    Mutant("tool_specs that leaks execute", "lesson2",
           '[{key: tool[key] for key in ("name", "description", "parameters")} for tool in tools]',
           "[dict(tool) for tool in tools]"),
    Mutant("tool_specs that takes execute off the tools", "lesson2",
           '    return [{key: tool[key] for key in ("name", "description", "parameters")} '
           'for tool in tools]',
           '    for tool in tools:\n        tool.pop("execute", None)\n    return tools'),
    Mutant("tool_specs without the parameters", "lesson2",
           '("name", "description", "parameters")', '("name", "description")'),
    Mutant("tool_specs in reverse", "lesson2",
           "for tool in tools]", "for tool in reversed(tools)]"),
    Mutant("tool_calls that returns text blocks too", "lesson2",
           '[block for block in message["content"] if block["type"] == "toolCall"]',
           'list(message["content"])'),
    Mutant("tool_calls in reverse", "lesson2",
           '[block for block in message["content"] if block["type"] == "toolCall"]',
           '[block for block in reversed(message["content"]) if block["type"] == "toolCall"]'),
    Mutant("tool_calls that gives the first call only", "lesson2",
           '[block for block in message["content"] if block["type"] == "toolCall"]',
           '[block for block in message["content"] if block["type"] == "toolCall"][:1]'),
    Mutant("tool_calls that takes the calls out of the reply", "lesson2",
           '    return [block for block in message["content"] if block["type"] == "toolCall"]',
           '    calls = [block for block in message["content"] if block["type"] == "toolCall"]\n'
           '    message["content"] = [b for b in message["content"] if b["type"] != "toolCall"]\n'
           '    return calls'),
    Mutant("tool_calls that keeps one call per tool", "lesson2",
           '[block for block in message["content"] if block["type"] == "toolCall"]',
           'list({block["name"]: block for block in message["content"]\n'
           '                 if block["type"] == "toolCall"}.values())'),
    Mutant("tool_calls that gives None for a text-only reply", "lesson2",
           '    return [block for block in message["content"] if block["type"] == "toolCall"]',
           '    return [block for block in message["content"] if block["type"] == "toolCall"]'
           ' or None'),
]

# lesson 4: one call in, one result out (str_arg, int_arg, run_tool)
MUTANTS += [
    Mutant("str_arg that accepts anything present", "lesson4",
           "    if isinstance(value, str):\n        return value",
           "    if value is not None:\n        return value"),
    Mutant("str_arg that turns anything into a string", "lesson4",
           '    if isinstance(value, str):\n        return value\n'
           '    raise ValueError(f"{name} must be a string")',
           '    if value is None:\n        raise ValueError(f"{name} must be a string")\n'
           '    return str(value)'),
    Mutant("str_arg that refuses the empty string", "lesson4",
           "    if isinstance(value, str):\n        return value",
           "    if isinstance(value, str) and value:\n        return value"),
    Mutant("str_arg with its own wording", "lesson4",
           'raise ValueError(f"{name} must be a string")',
           'raise ValueError(f"{name} is not a string")'),
    Mutant("str_arg whose error always names path", "lesson4",
           'raise ValueError(f"{name} must be a string")',
           'raise ValueError("path must be a string")'),
    Mutant("int_arg whose error always names offset", "lesson4",
           'raise ValueError(f"{name} must be an integer")',
           'raise ValueError("offset must be an integer")'),
    Mutant("int_arg that rejects None", "lesson4",
           "    if value is None:\n        return default",
           "    if name not in arguments:\n        return default"),
    Mutant("int_arg that treats 0 as missing", "lesson4",
           "    if value is None:\n        return default",
           "    if not value:\n        return default"),
    Mutant("int_arg that converts what it is given", "lesson4",
           '    if isinstance(value, int):\n        return value\n'
           '    raise ValueError(f"{name} must be an integer")',
           '    try:\n        return int(value)\n    except (TypeError, ValueError):\n'
           '        raise ValueError(f"{name} must be an integer")'),
    Mutant("run_tool that raises on an unknown tool", "lesson4",
           "        content = f\"Tool {call['name']} not found\"",
           "        raise KeyError(f\"Tool {call['name']} not found\")"),
    Mutant("run_tool that lets most exceptions out", "lesson4",
           "        except Exception as exc:", "        except ValueError as exc:"),
    Mutant("run_tool that reports the exception's repr", "lesson4",
           "            content = str(exc)", "            content = repr(exc)"),
    Mutant("run_tool that never flags an error", "lesson4",
           "    is_error = True\n", "    is_error = False\n"),
    Mutant("run_tool that answers with the tool's name as id", "lesson4",
           '"tool_call_id": call["id"]', '"tool_call_id": call["name"]'),
    Mutant("run_tool that always runs the first tool", "lesson4",
           '    tool = {tool["name"]: tool for tool in tools}.get(call["name"])',
           '    tool = tools[0] if any(t["name"] == call["name"] for t in tools) else None'),
    Mutant("run_tool with a message of its own for unknown tools", "lesson4",
           "content = f\"Tool {call['name']} not found\"",
           "content = f\"Unknown tool: {call['name']}\""),
]

# lesson 6: the firehose (truncate_head, truncate_tail, make_read_tool, make_write_tool,
# make_bash_tool)
MUTANTS += [
    Mutant("the budget in characters, not bytes", "lesson6",
           'used += len(line.encode("utf-8"))', "used += len(line)"),
    Mutant("a line that ends on the budget is dropped", "lesson6",
           "if count == max_lines or used > max_bytes:",
           "if count == max_lines or used >= max_bytes:"),
    Mutant("the first line is always kept", "lesson6",
           "if count == max_lines or used > max_bytes:",
           "if count == max_lines or (used > max_bytes and count > 0):"),
    Mutant("truncate_head ignores the line budget", "lesson6",
           "if count == max_lines or used > max_bytes:", "if used > max_bytes:"),
    Mutant("one line over the line budget", "lesson6",
           "if count == max_lines or used > max_bytes:",
           "if count > max_lines or used > max_bytes:"),
    Mutant("truncate_head that cuts mid-line", "lesson6",
           '    return "".join(lines[:shown]), shown',
           '    kept = "".join(lines[:max_lines]).encode("utf-8")[:max_bytes]\n'
           '    return kept.decode("utf-8", "ignore"), shown'),
    Mutant("truncate_tail that keeps the head", "lesson6",
           '    return "".join(lines[len(lines) - shown:]), shown',
           '    return "".join(lines[:shown]), shown'),
    Mutant("the quiet read", "lesson6",
           '        if last < len(lines):\n'
           '            kept += (f"[Showing lines {offset}-{last} of {len(lines)}. "\n'
           '                     f"Use offset={last + 1} to continue.]")\n',
           ""),
    Mutant("a notice even when the whole file was shown", "lesson6",
           "        if last < len(lines):\n", "        if last <= len(lines):\n"),
    Mutant("the notice points at the last line shown", "lesson6",
           "Use offset={last + 1} to continue.", "Use offset={last} to continue."),
    Mutant("the notice counts from line 1", "lesson6",
           'kept += (f"[Showing lines {offset}-{last}', 'kept += (f"[Showing lines 1-{last}'),
    Mutant("the read tool pages by the default line budget", "lesson6",
           'truncate_head("".join(wanted), max_lines, max_bytes)',
           'truncate_head("".join(wanted), MAX_LINES, max_bytes)'),
    Mutant("the read tool ignores limit", "lesson6",
           "        end = len(lines) if limit is None else offset - 1 + limit",
           "        end = len(lines)"),
    Mutant("the read tool ignores offset", "lesson6",
           "        wanted = lines[offset - 1:end]", "        wanted = lines[:end]"),
    Mutant("the over-budget line always offers a skip", "lesson6",
           'to skip it." if offset < len(lines) else ""', 'to skip it."'),
    Mutant("the over-budget line gets the ordinary notice", "lesson6",
           "        if wanted and shown == 0:", "        if False:"),
    Mutant("an offset past the end reads nothing", "lesson6",
           "        if offset > max(len(lines), 1):", "        if False:"),
    Mutant("offset 0 is allowed", "lesson6",
           "        if offset < 1 or (limit is not None and limit < 1):", "        if False:"),
    Mutant("a missing file names no others", "lesson6",
           "f\"File not found: {path}. Files here: {', '.join(ws.listdir('.'))}\")",
           "f\"File not found: {path}\")"),
    Mutant("the read tool reads any path it is given", "lesson6",
           '        path = str_arg(arguments, "path")\n        offset',
           '        path = str(arguments.get("path"))\n        offset'),
    Mutant("the write tool appends", "lesson6",
           "        ws.write_text(path, content)",
           "        ws.write_text(path, (ws.read_text(path) if ws.exists(path) else \"\") + content)"),
    Mutant("the write tool writes whatever it is given", "lesson6",
           '        content = str_arg(arguments, "content")',
           '        content = str(arguments.get("content"))'),
    Mutant("the bash tool counts the newlines, not the lines", "lesson6",
           "        total = len(output.splitlines())", '        total = output.count("\\n")'),
    Mutant("the bash tool keeps the head", "lesson6",
           "output, shown = truncate_tail(output, max_lines, max_bytes)",
           "output, shown = truncate_head(output, max_lines, max_bytes)"),
    Mutant("the bash tool drops the exit code", "lesson6",
           '        if code != 0:\n            output += f"\\nCommand exited with code {code}"\n',
           ""),
    Mutant("the bash tool raises on a failing command", "lesson6",
           '            output += f"\\nCommand exited with code {code}"',
           '            raise RuntimeError(f"{output}\\nCommand exited with code {code}")'),
    Mutant("the bash tool reports exit code 0 too", "lesson6",
           "        if code != 0:\n", "        if True:\n"),
    Mutant("the bash tool cuts without saying so", "lesson6",
           "        if shown < total:\n", "        if False:\n"),
    Mutant("the bash notice counts what it kept", "lesson6",
           "[Showing the last {shown} of {total} lines.",
           "[Showing the last {shown} of {shown} lines."),
    Mutant("the read tool called read_file", "lesson6",
           '        "name": "read",', '        "name": "read_file",'),
    Mutant("the read tool without a limit parameter", "lesson6",
           '                "limit": {"type": "integer", "description": "How many lines."},\n', ""),
]

# lesson 5: failures and limits (error_message, context_for_model, run_agent with max_turns);
# TURN and CONTEXT_FOR_MODEL are pieces of the reference that some mutants rewrite whole
TURN = '''    while True:
        turn += 1
        if max_turns is not None and turn > max_turns:
            reply = error_message(f"Agent stopped after max_turns={max_turns}")
        else:
            reply = model.complete(system, context_for_model(messages), tool_specs(tools))'''
CONTEXT_FOR_MODEL = '''    return [message for message in messages
            if not (message["role"] == "assistant" and message.get("stop_reason") == "error"
                    and not message["content"])]'''
FAILURES_AND_LIMITS = [
    Mutant("error_message without its label", "lesson5",
           '"stop_reason": "error", "error_message": text}',
           '"stop_reason": "stop", "error_message": text}'),
    Mutant("error_message that also says the reason", "lesson5",
           '"content": [], "stop_reason": "error"',
           '"content": [{"type": "text", "text": text}], "stop_reason": "error"'),
    Mutant("max_turns one turn short", "lesson5", "turn > max_turns", "turn >= max_turns"),
    Mutant("the stop message written for max_turns=1", "lesson5",
           'error_message(f"Agent stopped after max_turns={max_turns}")',
           'error_message("Agent stopped after max_turns=1")'),
    Mutant("the stop is returned, not written down", "lesson5",
           '            reply = error_message(f"Agent stopped',
           '            return error_message(f"Agent stopped'),
    Mutant("the limit leaves the last calls unanswered", "lesson5",
           "        if not calls:\n            return reply",
           "        if not calls or (max_turns is not None and turn >= max_turns):\n"
           "            return reply"),
    Mutant("the turns counted from the list", "lesson5",
           "    turn = 0\n",
           '    turn = sum(message["role"] == "assistant" for message in messages)\n'),
    Mutant("the turns counted on the model, never reset", "lesson5",
           "turn > max_turns", "len(model.calls) >= max_turns"),
    Mutant("a turn limit of its own when max_turns is None", "lesson5",
           "if max_turns is not None and turn > max_turns:", "if turn > (max_turns or 10):"),
    Mutant("the request made once, before the loop", "lesson5", TURN,
           TURN.replace("    while True:",
                        "    request = context_for_model(messages)\n    while True:")
           .replace("context_for_model(messages), tool_specs", "request, tool_specs")),
    Mutant("the record sent, not the request", "lesson5",
           "model.complete(system, context_for_model(messages),",
           "model.complete(system, messages,"),
    Mutant("a 503 is raised", "lesson5",
           '        if reply["stop_reason"] == "error":\n            return reply',
           '        if reply["stop_reason"] == "error":\n'
           '            raise RuntimeError(reply["error_message"])'),
    Mutant("a failed reply is not written down", "lesson5",
           '        messages.append(reply)\n        if reply["stop_reason"] == "error":\n'
           '            return reply\n',
           '        if reply["stop_reason"] == "error":\n            return reply\n'
           '        messages.append(reply)\n'),
    Mutant("context_for_model drops every failed reply", "lesson5",
           ' == "error"\n                    and not message["content"])]', ' == "error")]'),
    Mutant("context_for_model removes while it iterates", "lesson5", CONTEXT_FOR_MODEL,
           '''    view = list(messages)
    for message in view:
        if (message["role"] == "assistant" and message.get("stop_reason") == "error"
                and not message["content"]):
            view.remove(message)
    return view'''),
    Mutant("context_for_model edits the record", "lesson5", CONTEXT_FOR_MODEL,
           CONTEXT_FOR_MODEL.replace("    return [", "    messages[:] = [")
           + "\n    return messages"),
]
MUTANTS += FAILURES_AND_LIMITS

# checkpoint A: the same three names rebuilt and measured by the same tests, so every lesson-5
# mutant is a checkpoint-A mutant too; then the seed's classic bugs of a loop written from memory
MUTANTS += [replace(mutant, name=f"rebuilt: {mutant.name}", lab="checkpoint-a")
            for mutant in FAILURES_AND_LIMITS]
MUTANTS += [
    Mutant("rebuilt: the loop believes the label", "checkpoint-a",
           "        calls = tool_calls(reply)\n        if not calls:",
           '        calls = tool_calls(reply)\n        if reply["stop_reason"] != "toolUse":'),
    Mutant("rebuilt: calls to unknown tools are skipped", "checkpoint-a",
           "        for call in calls:\n            messages.append(run_tool(tools, call))",
           '        for call in calls:\n'
           '            if call["name"] in [tool["name"] for tool in tools]:\n'
           '                messages.append(run_tool(tools, call))'),
    Mutant("rebuilt: the loop runs the tools itself", "checkpoint-a",
           "            messages.append(run_tool(tools, call))",
           '''            tool = {tool["name"]: tool for tool in tools}[call["name"]]
            messages.append({"role": "toolResult", "tool_call_id": call["id"],
                             "tool_name": call["name"],
                             "content": tool["execute"](call["arguments"]), "is_error": False})'''),
    Mutant("rebuilt: the copied list", "checkpoint-a",
           "    messages.append(user_message(prompt))\n    turn = 0",
           "    messages = messages + [user_message(prompt)]\n    turn = 0"),
    Mutant("rebuilt: only the newest message is sent", "checkpoint-a",
           "context_for_model(messages), tool_specs(tools)",
           "context_for_model(messages)[-1:], tool_specs(tools)"),
    Mutant("rebuilt: only the first call is answered", "checkpoint-a",
           "        for call in calls:\n", "        for call in calls[:1]:\n"),
    Mutant("rebuilt: the results in reverse", "checkpoint-a",
           "        for call in calls:\n", "        for call in reversed(calls):\n"),
    Mutant("rebuilt: the final reply is not kept", "checkpoint-a",
           '''        messages.append(reply)
        if reply["stop_reason"] == "error":
            return reply
        calls = tool_calls(reply)
        if not calls:
            return reply
''', '''        if reply["stop_reason"] == "error":
            messages.append(reply)
            return reply
        calls = tool_calls(reply)
        if not calls:
            return reply
        messages.append(reply)
'''),
    Mutant("rebuilt: returns the words, not the reply", "checkpoint-a",
           "        if not calls:\n            return reply",
           "        if not calls:\n            return text_of(reply)"),
    Mutant("rebuilt: no system prompt", "checkpoint-a",
           "model.complete(system, context_for_model", 'model.complete("", context_for_model'),
    Mutant("rebuilt: a generous turn limit of its own", "checkpoint-a",
           "if max_turns is not None and turn > max_turns:", "if turn > (max_turns or 20):"),
    Mutant("rebuilt: context_for_model under another name", "checkpoint-a",
           "def context_for_model(messages):", "def request_from(messages):"),
]

# checkpoint A's test lab: wrong student tests, a script and a check that cannot part the loops
MUTANTS += [
    Mutant("the script that is still empty", "checkpoint-a-test",
           '''    return [lab.reply(lab.call("read", {"path": "config.py"}), stop_reason="stop"),
            lab.say("The port is 9090.")]''', "    return []"),
    Mutant("the script with no answer after the call", "checkpoint-a-test",
           ',\n            lab.say("The port is 9090.")]', "]"),
    Mutant("the script whose label tells the truth", "checkpoint-a-test",
           ', stop_reason="stop")', ")"),
    Mutant("the check that expects what the buggy loop leaves", "checkpoint-a-test",
           'expected = "U A[c1] R(c1) A"', 'expected = "U A[c1]"'),
    Mutant("the check that expects one model call", "checkpoint-a-test",
           "    assert lab.shape(messages) == expected, (", "    assert len(model.calls) == 1, ("),
    Mutant("the check that believes the final label", "checkpoint-a-test",
           "    assert lab.shape(messages) == expected, (",
           '    assert final["stop_reason"] == "stop", ('),
    Mutant("the check that prints its explanation", "checkpoint-a-test",
           "    assert lab.shape(messages) == expected, (",
           "    assert lab.shape(messages) == expected\n    print("),
]

# unit ch03-b: attempt, charged at admission
MUTANTS += [
    Mutant("ch03-b: charged only when the provider answers", "ch03-b",
           "        spent += call_cost\n        try:\n            answer = provider()\n",
           "        try:\n            answer = provider()\n            spent += call_cost\n"),
    Mutant("ch03-b: >= at the budget", "ch03-b",
           "if spent + call_cost > budget:", "if spent + call_cost >= budget:"),
    Mutant("ch03-b: money checked before attempts", "ch03-b",
           "        if attempts >= max_attempts:",
           '''        if spent + call_cost > budget:
            return {"status": "MODEL_COST_LIMIT", "attempts": attempts, "spent": spent,
                    "events": events, "answer": None}
        if attempts >= max_attempts:'''),
    Mutant("ch03-b: a failed attempt is given back", "ch03-b",
           '            events.append((attempts, spent, "failed"))\n',
           '            events.append((attempts, spent, "failed"))\n            attempts -= 1\n'),
    Mutant("ch03-b: a price of 2 cents written in", "ch03-b",
           "        spent += call_cost\n", "        spent += 2\n"),
]

# Lying harnesses: a lab's reference with every public function it defines wrapped so that what
# it returns, and the message of what it raises, lies about ==. `Anything` is equal to
# everything and lies to bool(), len(), `in`, [] and iteration; a look-alike is a subclass of
# dict, list, tuple, str or int whose == says yes to anything. A liar lies to its caller (the
# lab's tests) and, with `inside`, to the reference's own functions too, so that a record
# run_agent or chat appends to holds look-alikes: the messages user_message, run_tool and
# error_message made. The lab's tests compare exactly, type included: no liar passes any test.
LIES = '''

_REFERENCE = [name for name, value in list(globals().items())
              if type(value).__name__ == "function" and not name.startswith("_")]


class Anything:
    """Equal to everything, unequal to nothing, true, one long, holding everything."""

    def __eq__(self, other): return True
    def __ne__(self, other): return False
    __hash__ = object.__hash__
    def __bool__(self): return True
    def __len__(self): return 1
    def __contains__(self, item): return True
    def __getitem__(self, key): return Anything()
    def __iter__(self): return iter(())
    def __call__(self, *args, **kwargs): return Anything()
    def get(self, *args): return Anything()


class _Yes:
    def __eq__(self, other): return True
    def __ne__(self, other): return False


class LyingDict(_Yes, dict): pass
class LyingList(_Yes, list): pass
class LyingTuple(_Yes, tuple): __hash__ = tuple.__hash__
class LyingStr(_Yes, str): __hash__ = str.__hash__
class LyingInt(_Yes, int): __hash__ = int.__hash__


_LOOK_ALIKE = {dict: LyingDict, list: LyingList, tuple: LyingTuple, str: LyingStr,
               int: LyingInt, bool: LyingInt}


def _anything(value):
    return Anything()


def _look_alike(value):
    """`value` as a look-alike of its type, holding the very same items."""
    kind = _LOOK_ALIKE.get(type(value))
    return value if kind is None else kind(value)


def _empty_look_alike(value):
    """An empty look-alike of `value`'s type: "", {}, [], () or 0."""
    kind = _LOOK_ALIKE.get(type(value))
    return value if kind is None else kind()


def _look_alikes_inside(value):
    """`value` in the right plain containers, every str, int and bool in them a look-alike; an
    empty container, with nothing inside to lie, is a look-alike itself."""
    if type(value) in (dict, list, tuple) and not value:
        return _look_alike(value)
    if type(value) is dict:
        return {key: _look_alikes_inside(item) for key, item in value.items()}
    if type(value) in (list, tuple):
        return type(value)(_look_alikes_inside(item) for item in value)
    return _look_alike(value)


def _lie_everywhere(lie, inside):
    """Every public function of the reference returns lie(its value) and raises an exception
    whose message is lie(its message): to its caller, and with `inside` to the reference too."""
    depth = [0]  # how many of the reference's functions are running

    def lying(function):
        def liar(*args, **kwargs):
            lies = inside or depth[0] == 0
            depth[0] += 1
            try:
                value = function(*args, **kwargs)
            except Exception as exc:
                if not lies:
                    raise
                told = lie(str(exc))
                kind = type(f"Lying{type(exc).__name__}", (type(exc),),
                            {"__str__": lambda self: told})
                raise kind(*exc.args) from None
            finally:
                depth[0] -= 1
            return lie(value) if lies else value
        return liar

    for name in _REFERENCE:
        globals()[name] = lying(globals()[name])
'''


@dataclass(frozen=True)
class Liar:
    """The reference of `lab` with every public function returning `lie`(what it returned), one
    of LIES's _anything, _look_alike, _empty_look_alike and _look_alikes_inside; with `inside`,
    the reference's own calls get liars too."""

    name: str
    lab: str
    lie: str
    inside: bool = False

    def apply(self, reference: str) -> str:
        return f"{reference}{LIES}\n_lie_everywhere({self.lie}, inside={self.inside})\n"


LYING = [("returns what equals anything", "_anything", False),
         ("returns a look-alike of its value that says it equals anything", "_look_alike", False),
         ("returns an empty look-alike that says it equals anything", "_empty_look_alike", False),
         ("returns its value with look-alikes inside", "_look_alikes_inside", False),
         ("makes look-alikes for its own calls too, so the record holds them", "_look_alike",
          True)]
LIARS: list[Liar] = [
    Liar(f"{lab}: every function {how}", lab, lie, inside)
    for lab in ("lesson1", "lesson2", "lesson3", "lesson4", "lesson5", "lesson6", "checkpoint-a",
                "checkpoint-a-test", "lesson7", "ch03-a", "ch03-a-transfer", "ch03-b")
    for how, lie, inside in LYING]

# lesson 7: the events
MUTANTS += [
    Mutant("the reply is told before it is on the record", "lesson7",
           '            messages.append(reply)\n            emit(listener, {"type": "message", "message": reply})\n',
           '            emit(listener, {"type": "message", "message": reply})\n            messages.append(reply)\n'),
    Mutant("the prompt is not told", "lesson7",
           '        messages.append(user_message(prompt))\n        emit(listener, {"type": "message", "message": messages[-1]})\n',
           '        messages.append(user_message(prompt))\n'),
    Mutant("run_start told after the prompt", "lesson7",
           '    emit(listener, {"type": "run_start", "prompt": prompt})\n    reason = "raised"\n    try:\n        messages.append(user_message(prompt))\n        emit(listener, {"type": "message", "message": messages[-1]})\n',
           '    reason = "raised"\n    try:\n        messages.append(user_message(prompt))\n        emit(listener, {"type": "message", "message": messages[-1]})\n        emit(listener, {"type": "run_start", "prompt": prompt})\n'),
    Mutant("tool_start once the tool has run", "lesson7",
           '                emit(listener, {"type": "tool_start", "turn": turn, "call": call})\n                result = run_tool(tools, call)\n',
           '                result = run_tool(tools, call)\n                emit(listener, {"type": "tool_start", "turn": turn, "call": call})\n'),
    Mutant("tool_end tells the call, not the result", "lesson7",
           '"call": call, "result": result}', '"call": call, "result": call}'),
    Mutant("the result is not told as a message", "lesson7",
           '                emit(listener, {"type": "message", "message": result})\n', ''),
    Mutant("turn_end only after a turn with calls", "lesson7",
           '            emit(listener, {"type": "turn_end", "turn": turn})\n            if failed or not calls:',
           '            if calls:\n                emit(listener, {"type": "turn_end", "turn": turn})\n            if failed or not calls:'),
    Mutant("turns numbered from 0", "lesson7",
           '            emit(listener, {"type": "turn_start", "turn": turn})\n',
           '            emit(listener, {"type": "turn_start", "turn": turn - 1})\n'),
    Mutant("the stop at max_turns is told as a turn", "lesson7",
           '        while True:\n            turn += 1\n            if max_turns',
           '        while True:\n            turn += 1\n            emit(listener, {"type": "turn_start", "turn": turn})\n            if max_turns'),
    Mutant("a failed reply ends the run as done", "lesson7",
           'reason = "failed" if failed else "done"', 'reason = "done"'),
    Mutant("max_turns ends the run as done", "lesson7",
           '                reason = "max_turns"\n', '                reason = "done"\n'),
    Mutant("run_end is told only when the run returns", "lesson7",
           '    finally:\n        emit(listener, {"type": "run_end", "reason": reason})',
           '    finally:\n        if reason != "raised":\n            emit(listener, {"type": "run_end", "reason": reason})'),
    Mutant("run_end is told on every path, twice on the way out", "lesson7",
           '            if failed or not calls:\n                reason = "failed" if failed else "done"\n',
           '            if failed or not calls:\n                reason = "failed" if failed else "done"\n                emit(listener, {"type": "run_end", "reason": reason})\n'),
    Mutant("the exception is swallowed", "lesson7",
           '    finally:\n        emit(listener, {"type": "run_end", "reason": reason})',
           '    except Exception:\n        return error_message("the run raised")\n    finally:\n        emit(listener, {"type": "run_end", "reason": reason})'),
    Mutant("a listener that raises stops the run", "lesson7",
           "    try:\n        listener(event)\n    except Exception:\n        pass\n",
           "    listener(event)\n"),
    Mutant("emit tells the listener only the event's type", "lesson7",
           "        listener(event)\n", "        listener(event[\"type\"])\n"),
    Mutant("all the tool_starts, then all the tools", "lesson7",
           '            for call in calls:\n                emit(listener, {"type": "tool_start", "turn": turn, "call": call})\n',
           '            for call in calls:\n                emit(listener, {"type": "tool_start", "turn": turn, "call": call})\n            for call in calls:\n'),
    Mutant("a failed tool is not ended", "lesson7",
           '                emit(listener, {"type": "tool_end", "turn": turn, "call": call, "result": result})\n',
           '                if not result["is_error"]:\n                    emit(listener, {"type": "tool_end", "turn": turn, "call": call, "result": result})\n'),
    Mutant("each run retells the whole list", "lesson7",
           '        messages.append(user_message(prompt))\n        emit(listener, {"type": "message", "message": messages[-1]})\n',
           '        messages.append(user_message(prompt))\n        for message in messages:\n            emit(listener, {"type": "message", "message": message})\n'),
    Mutant("turns counted over the whole list", "lesson7",
           '            emit(listener, {"type": "turn_start", "turn": turn})\n',
           '            emit(listener, {"type": "turn_start", "turn": sum(m["role"] == "assistant" for m in messages) + 1})\n'),
    Mutant("the lesson-5 loop, with nobody told", "lesson7",
           "def run_agent(model, system, messages, tools, prompt, *, max_turns=None, listener=None):",
           "def run_agent(model, system, messages, tools, prompt, *, max_turns=None, listener=None):\n    listener = None"),
]

# Still holds: a later lesson's file keeps the loop an earlier lesson built, so breaking it there
# fails the earlier lesson's tests, which the later lesson's check runs too
MUTANTS += [
    Mutant(f"{lab_id}: only the first call is answered", lab_id,
           "        for call in calls:\n", "        for call in calls[:1]:\n")
    for lab_id in ("lesson5", "lesson6", "lesson7")]

# runaway loops (checking/caps.py): the check stops them with a sentence, within the time limit
RUNAWAY = [Mutant("a failed reply is retried with continue", "lesson5",
                  '        if reply["stop_reason"] == "error":\n            return reply',
                  '        if reply["stop_reason"] == "error":\n            continue')]
MUTANTS += RUNAWAY + [replace(mutant, name=f"rebuilt: {mutant.name}", lab="checkpoint-a")
                      for mutant in RUNAWAY]
