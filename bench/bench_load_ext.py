"""How long `%load_ext agentlab_magics` takes in a fresh Python, against two baselines measured in
the same process just before it: creating IPython's InteractiveShell (imports included), and
`%load_ext autoreload`, an extension IPython ships. Also lists what the load imported.

Each repeat is a new interpreter, so every import is paid again, as in a kernel just started;
one run is made first and thrown away (it makes the IPython profile folder). Medians are shown.

Run: python bench/bench_load_ext.py [repeats]. Snapshots a table; asserts nothing.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile

HEAVY = ("pytest", "pydantic", "anywidget", "ipywidgets", "nbformat", "openai")

PROBE = """
import json, sys, time
start = time.perf_counter()
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()
made = time.perf_counter()
shell.run_line_magic("load_ext", "autoreload")
baseline = time.perf_counter()
before = set(sys.modules)
shell.run_line_magic("load_ext", "agentlab_magics")
loaded = time.perf_counter()
added = set(sys.modules) - before
print(json.dumps({"shell": made - start, "autoreload": baseline - made,
                  "agentlab": loaded - baseline, "modules": len(added),
                  "heavy": [name for name in sys.argv[1:] if name in added]}))
"""


def probe(ipython_dir: str) -> dict:
    """One fresh interpreter's timings, in seconds, and what its load imported."""
    env = {**os.environ, "IPYTHONDIR": ipython_dir}
    done = subprocess.run([sys.executable, "-c", PROBE, *HEAVY], env=env, check=True,
                          capture_output=True, text=True)
    return json.loads(done.stdout.splitlines()[-1])


def main(repeats: int = 7) -> None:
    with tempfile.TemporaryDirectory() as ipython_dir:
        probe(ipython_dir)  # warm: the profile folder and its history database
        runs = [probe(ipython_dir) for _ in range(repeats)]
    median = {key: statistics.median(run[key] for run in runs) * 1000
              for key in ("shell", "autoreload", "agentlab")}
    print(f"{'step (fresh interpreter)':28} {'median ms':>10} {'x shell':>8} {'x autoreload':>13}")
    for key, label in (("shell", "InteractiveShell.instance()"),
                       ("autoreload", "%load_ext autoreload"),
                       ("agentlab", "%load_ext agentlab_magics")):
        print(f"{label:28} {median[key]:10.1f} {median[key] / median['shell']:7.2f}x "
              f"{median[key] / median['autoreload']:12.1f}x")
    last = runs[-1]
    print(f"\n%load_ext agentlab_magics imported {last['modules']} modules; of the heavy ones "
          f"({', '.join(HEAVY)}): {', '.join(last['heavy']) or 'none'}.")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 7)
