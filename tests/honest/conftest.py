"""The campaign (campaign.py) is started when the first test of tests/honest runs, for the
paths whose tests were selected (after -k and the like), and its clock is printed at the end
of the session."""

from __future__ import annotations

import pytest

from tests.honest.campaign import PARTS, Campaign

_state: dict = {}


def pytest_collection_finish(session):
    _state["parts"] = {part for item in session.items
                       if (part := getattr(getattr(item, "function", None), "part", None))}


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    started = Campaign(tmp_path_factory.mktemp("honest"), _state.get("parts", set(PARTS)))
    _state["campaign"] = started
    yield started
    started.close()


def pytest_terminal_summary(terminalreporter):
    started = _state.get("campaign")
    if started is not None:
        terminalreporter.write_line(f"honest styles, when each path ran: "
                                    f"{started.clock.summary()}")
