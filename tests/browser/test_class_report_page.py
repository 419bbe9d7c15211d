"""The class report as an instructor opens it: the page of the graded term (tests/class_term.py)
from disk in headless Chromium with the network off and every request but the page's own
file refused. It draws its charts and tables, fetches nothing, and runs no script of a
student's. Screenshots "class-report" (the first screen) and "class-report-full" go to
$AGENTLAB_SCREENSHOTS, or else a temporary folder.
"""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser.lab_session import shoot


def test_the_page_opens_from_disk_offline_and_draws_every_chart_beside_its_table(
        browser, class_term, screenshots):
    context = browser.new_context(offline=True, viewport={"width": 1280, "height": 900})
    asked: list[str] = []

    def refuse(route):
        asked.append(route.request.url)
        route.abort()

    context.route(lambda url: not url.startswith("file://"), refuse)
    page = context.new_page()
    alerts: list[str] = []
    page.on("dialog", lambda dialog: (alerts.append(dialog.message), dialog.dismiss()))
    page.goto(class_term.page.as_uri())
    expect(page.locator("h1")).to_have_text("The class at a glance: agentlab")
    charts = page.locator("div.pair svg")
    assert charts.count() >= 3
    for n in range(charts.count()):
        box = charts.nth(n).bounding_box()
        assert box and box["width"] > 100 and box["height"] > 50
    expect(page.locator("tr[data-student]")).to_have_count(4)
    expect(page.get_by_text("<script>alert(1)</script>").first).to_be_visible()
    shoot(page, screenshots, "class-report")
    page.locator("details").first.click()  # a test's causes unfold
    page.screenshot(path=screenshots / "class-report-full.png", full_page=True)
    assert asked == [] and alerts == []
    context.close()
