"""The real producers, run here and now: the OpenAI Agents SDK, OpenTelemetry's GenAI
instrumentation, OpenInference's and Inspect AI (the `[traces]` extra) are installed into a
fresh virtual environment of their own, the scripts of tests/traces/producers run there against
their fake OpenAI server on 127.0.0.1, and what they write is read back by `lab.read_run` in the
suite's environment, which has none of those packages: the traces of today's packages, not only
the fixtures they once wrote, read back to the conversation they recorded."""

from __future__ import annotations

import subprocess
import sys
import tomllib
import venv
from pathlib import Path

import pytest

from agentlab_magics import lab
from tests.test_install_lines import environment
from tests.traces.test_read_run import TRACES, assert_notes_app, assert_reads_back

ROOT = Path(__file__).resolve().parents[2]
PRODUCERS = Path(__file__).parent / "producers"
# each script, with its arguments (the openai-v2 instrumentation needs a pinned helper package
# on its path: its fixture is made by hand, as producers/make_otel_genai.py says)
SCRIPTS = [["make_agents_sdk.py"], ["make_otel_genai.py", "agents"],
           ["make_openinference.py", "agents"], ["make_openinference.py", "openai"],
           ["make_inspect.py"], ["make_notes_app.py"]]
MADE_HERE = [name for name in TRACES if name != "otel_genai_openai_v2.jsonl"]


def traces_extra() -> list[str]:
    """The requirements of the `[traces]` extra, as pyproject.toml lists them."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return project["optional-dependencies"]["traces"]


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("producers")
    venv.create(work / "venv", with_pip=True)
    python = str(work / "venv" / "bin" / "python")
    installed = subprocess.run([python, "-m", "pip", "install", "--quiet", *traces_extra()],
                               env=environment(), capture_output=True, text=True, timeout=900)
    assert installed.returncode == 0, installed.stderr[-3000:]
    out = work / "traces"
    out.mkdir()
    for script in SCRIPTS:
        done = subprocess.run([python, str(PRODUCERS / script[0]), *script[1:]],
                              env={**environment(), "TRACES_OUT": str(out)}, cwd=work,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, f"{script}: {done.stdout[-2000:]}{done.stderr[-2000:]}"
    return out


def test_the_suites_environment_has_none_of_the_producers():
    for package in ("agents", "inspect_ai", "openinference", "opentelemetry.sdk"):
        found = subprocess.run([sys.executable, "-c", f"import {package}"], capture_output=True)
        assert found.returncode != 0, f"{package} is installed beside the suite"


@pytest.mark.parametrize("name", MADE_HERE)
def test_a_trace_the_real_package_writes_now_reads_back(made, name):
    assert_reads_back(made / name)


def test_the_apps_trace_the_sdk_writes_now_has_its_retry_and_its_dropped_result(made):
    assert_notes_app(lab.read_run(made / "notes_app.jsonl"))
