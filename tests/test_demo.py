"""`agentlab demo` (the README's main job) prints the page's "four runs", line for line."""

import subprocess
import sys

from tests.seeds import page_cell


def test_demo_prints_the_four_runs_of_the_page():
    _, expected = page_cell(603, "a typo    : 3 model call(s)", "Four runs, four different")
    done = subprocess.run([sys.executable, "-m", "agentlab_magics", "demo"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.rstrip().splitlines() == expected.splitlines()


def test_an_unknown_command_is_a_usage_error():
    done = subprocess.run([sys.executable, "-m", "agentlab_magics", "nonsense"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "invalid choice" in done.stderr


def test_demo_help_says_what_it_shows_and_what_each_shape_means():
    done = subprocess.run([sys.executable, "-m", "agentlab_magics", "demo", "--help"],
                          capture_output=True, text=True, timeout=60)
    said = " ".join(done.stdout.split())
    assert done.returncode == 0 and "Show four runs of the reference harness" in said
    for token in ("U a user message", "A[c1,c2] a reply calling tools c1 and c2",
                  "A(error) a failed reply", "R(c1) the result for call c1"):
        assert token in said
