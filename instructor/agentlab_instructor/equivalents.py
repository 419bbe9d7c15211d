"""The equivalent mutants of each lab: edits of the reference (as `agentlab lab verify` names
them, "function: before -> after") that behave as the reference does wherever the lab's
tests could look, each with the reason. Kept here, beside the references, since each names a
line of the solution."""

# Why an argument's description may go: the lab asks each tool's description and each
# argument's type, and leaves to the student whether (and in what words) an argument is described.
DESCRIBED = ("an argument's description is the student's own words for the model, as free as "
             "the tool's: the lab holds each argument to its type and leaves its description "
             "to the student")
NO_LISTENER = ("with no listener, calling None raises TypeError, which emit's own `except "
               "Exception` catches: the event is dropped, as the early return drops it")

EQUIVALENT: dict[str, dict[str, str]] = {
    "lesson6": {
        f"{tool}: {{'type': '{kind}', 'description': '{words}'}} -> {{'type': '{kind}'}}":
            DESCRIBED
        for tool, kind, words in (
            ("make_read_tool", "string", "Path of the file to read."),
            ("make_read_tool", "integer", "First line, from 1."),
            ("make_read_tool", "integer", "How many lines."),
            ("make_write_tool", "string", "Path of the file to write."),
            ("make_write_tool", "string", "The new contents."),
            ("make_bash_tool", "string", "The command line."))},
    "checkpoint-a-test": {
        "script: {'path': 'config.py'} -> {}": (
            "what the read asks for does not decide where the loops part: both run the call, "
            "whatever its arguments, and the script's next step comes the same"),
    },
    "lesson7": {
        "emit: if listener is None: -> if False:": NO_LISTENER,
        "emit: return -> pass": NO_LISTENER,
    },
}
