"""What the command line shows when asked for a demonstration, beside its commands: the demo
term (`agentlab course demo`: a term of simulated students through nbgrader's whole round
trip), its students, and the hub demo (`agentlab hub demo`: the course on a real JupyterHub)."""

STUDENTS = ("reference", "starter", "wrong", "hanging", "deleted")
# What each hands in, in a line of the demo's output.
HANDS_IN = {
    "reference": "the lab's reference in every harness cell",
    "starter": "the released notebook, untouched",
    "wrong": "the reference with one plausible mistake",
    "hanging": "the reference with one function that never returns",
    "deleted": "the reference, with its first graded cell deleted (nbgrader puts it back)",
}
