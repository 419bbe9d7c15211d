// agentlab_magics views in the browser: a transcript, or a check report whose records are
// transcripts. Python has already judged everything (complaints, the request, which result
// answers which call); this module only draws the one JSON trait `data`. Every string from
// the data goes into the page as text (textContent, or a text node): none is parsed as HTML.

const OVERSCAN = 400; // pixels of rows kept drawn above and below the visible part
const GUESS = 60; // a row's height in pixels until it has been drawn and measured
const ROLES = new Set(["user", "assistant", "toolResult"]);

function node(tag, className, text) {
  const made = document.createElement(tag);
  if (className) made.className = className;
  if (text !== undefined && text !== null) made.textContent = String(text);
  return made;
}

function button(label, action) {
  const made = node("button", "", label);
  made.type = "button";
  made.dataset.action = action;
  return made;
}

// `text` appended to `parent` as text nodes, each occurrence of `query` inside a <mark>.
function withHits(parent, text, query) {
  const lower = text.toLowerCase();
  if (!query || lower.length !== text.length) {
    parent.append(text);
    return parent;
  }
  let at = 0;
  for (let hit = lower.indexOf(query); hit >= 0; hit = lower.indexOf(query, at)) {
    parent.append(text.slice(at, hit), node("mark", "al-hit", text.slice(hit, hit + query.length)));
    at = hit + query.length;
  }
  parent.append(text.slice(at));
  return parent;
}

// A collapsed text ({text, rest, more, notice}): the first lines, the rest behind a
// <details>, how much was never sent, and the truncation notice, always in view.
function textBlock(parent, part, query, open) {
  if (part.text) parent.append(withHits(node("pre", "al-text"), part.text, query));
  if (part.rest) {
    const details = node("details", "al-rest");
    details.open = Boolean(open);
    details.append(node("summary", "", "show more"),
      withHits(node("pre", "al-text"), part.rest, query));
    parent.append(details);
  }
  if (part.more) parent.append(node("div", "al-more", part.more));
  if (part.notice) parent.append(withHits(node("pre", "al-notice"), part.notice, query));
}

function haystack(row) {
  const words = [row.role, row.text, row.rest, row.notice, row.call_id, row.tool_name,
    row.stop_reason, row.error_message, row.problem];
  for (const call of row.calls || []) words.push(call.id, call.name, call.arguments);
  for (const complaint of row.complaints || []) words.push(complaint.text);
  return words.filter(Boolean).join("\n").toLowerCase();
}

function renderTranscript(host, data) {
  const rows = data.rows || [];
  const state = {
    view: data.view || "record", raw: false, query: "", open: new Set(), pinned: null,
  };
  const root = node("div", "al-transcript al-live");
  root.dataset.view = state.view;
  host.append(root);

  const head = node("div", "al-head");
  head.append(node("span", "al-title", data.source === "request" ? "Request" : "Record"),
    node("span", "al-counts", data.summary));
  root.append(head);
  if (data.shape) root.append(node("code", "al-shape", data.shape));
  if (data.system !== undefined) root.append(node("p", "al-note", `system: ${data.system}`));
  if (data.tools) root.append(node("p", "al-note", `tools: ${data.tools.join(", ") || "(none)"}`));
  if (data.verdict) {
    root.append(node("p", `al-verdict ${data.accepted ? "al-ok" : "al-bad"}`, data.verdict));
  }
  const requestVerdict = node("p", `al-verdict ${data.request_accepted ? "al-ok" : "al-bad"}`);
  if (data.request_verdict) {
    requestVerdict.append(`${data.request_verdict} `, node("code", "al-shape", data.request_shape));
    root.append(requestVerdict);
  }
  if (data.record_note) root.append(node("p", "al-note", data.record_note));

  const toolbar = node("div", "al-toolbar");
  const toggle = button("", "toggle-view");
  const raw = button("raw JSON", "toggle-raw");
  const search = node("input", "al-search");
  search.type = "search";
  search.placeholder = "search messages";
  search.dataset.action = "search";
  const found = node("span", "al-found");
  if (data.request_verdict) toolbar.append(toggle); // only where there is a request to show
  toolbar.append(raw, search, found);
  const scroller = node("div", "al-scroll");
  const spacer = node("div", "al-spacer");
  scroller.append(spacer);
  root.append(toolbar, scroller);

  const haystacks = [];
  const heights = { plain: new Map(), raw: new Map() };
  const drawn = new Map(); // row index -> its element, for the rows now in the DOM
  let order = rows.map((row) => row.index); // the rows that match the search
  let tops = new Float64Array(1);
  let frame = 0;
  let width = 0;
  let hover = null;

  const measured = () => (state.raw ? heights.raw : heights.plain);

  function complaintsShown(row) {
    const wanted = state.view === "request" ? "request" : "as_is";
    return (row.complaints || []).filter((complaint) => complaint[wanted]);
  }

  function buildRow(row) {
    const item = node("div", "al-row");
    item.dataset.index = row.index;
    item.classList.add(`al-role-${ROLES.has(row.role) ? row.role : "other"}`);
    const complaints = complaintsShown(row);
    if (complaints.length || row.problem) item.classList.add("al-flagged");
    if (row.is_error || row.stop_reason === "error") item.classList.add("al-is-error");
    if (row.in_request === false && state.view === "request") item.classList.add("al-left-out");
    if (row.call_id) item.dataset.callId = row.call_id;

    const line = node("div", "al-line");
    line.append(node("span", "al-index", row.index), node("span", "al-role", row.role));
    if (row.tool_name) line.append(node("span", "al-tag", row.tool_name));
    if (row.role === "toolResult") {
      const answers = node("span", "al-tag al-answers",
        row.call_row === undefined ? `answers ${row.call_id} · no such call`
          : `answers ${row.call_id} · row ${row.call_row}`);
      answers.dataset.action = "go-to-call";
      line.append(answers);
    }
    if (row.is_error) line.append(node("span", "al-tag al-error", "is_error"));
    if (row.stop_reason) line.append(node("span", "al-tag", `stop_reason: ${row.stop_reason}`));
    if (row.in_request === false) line.append(node("span", "al-tag al-out", data.left_out_label));
    item.append(line);

    const body = node("div", "al-body");
    if (row.problem) body.append(node("div", "al-problem", row.problem));
    if (state.raw) {
      body.append(withHits(node("pre", "al-raw"), row.raw || "", state.query));
    } else {
      textBlock(body, row, state.query, state.open.has(row.index));
      if (row.error_message) {
        body.append(withHits(node("pre", "al-error-message"),
          `error_message: ${row.error_message}`, state.query));
      }
      if (row.calls) {
        const calls = node("div", "al-calls");
        for (const call of row.calls) {
          const chip = node("span", "al-chip");
          chip.dataset.row = row.index;
          if (call.id) chip.dataset.callId = call.id;
          if (call.result_row !== undefined) chip.dataset.resultRow = call.result_row;
          chip.append(withHits(node("span", "al-call-id"), call.id || "(no id)", state.query), " ",
            withHits(node("span", "al-call-name"), call.name || "?", state.query),
            withHits(node("span", "al-call-args"), ` ${call.arguments}`, state.query),
            call.result_row === undefined ? " → no result" : ` → row ${call.result_row}`);
          calls.append(chip);
        }
        body.append(calls);
      }
    }
    item.append(body);
    if (complaints.length) {
      const list = node("ul", "al-complaints");
      for (const complaint of complaints) {
        const entry = withHits(node("li"), complaint.text, state.query);
        if (state.view === "record" && data.request_verdict && !complaint.request) {
          entry.classList.add("al-soft");
          entry.append(" (not in the request context_for_model computes)");
        }
        list.append(entry);
      }
      item.append(list);
    }
    paint(item);
    return item;
  }

  // Highlight: the call chip and the result row that answers it, while hovered or pinned.
  function paint(item) {
    const link = hover || state.pinned;
    const index = Number(item.dataset.index);
    item.classList.toggle("al-highlight", Boolean(link) && index === link.resultRow);
    item.classList.toggle("al-linked", Boolean(link) && index === link.callRow);
    for (const chip of item.querySelectorAll(".al-chip")) {
      chip.classList.toggle("al-highlight", Boolean(link) && index === link.callRow
        && chip.dataset.callId === link.callId);
    }
  }

  function layout() {
    const sizes = measured();
    tops = new Float64Array(order.length + 1);
    for (let k = 0; k < order.length; k++) tops[k + 1] = tops[k] + (sizes.get(order[k]) || GUESS);
    spacer.style.height = `${tops[order.length]}px`;
  }

  function firstBelow(y) {
    let low = 0;
    let high = order.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (tops[middle + 1] <= y) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  // Draw the rows in and near view, measure them, and redo the layout while guesses were wrong.
  function draw(pass = 0) {
    const top = scroller.scrollTop;
    const from = firstBelow(top - OVERSCAN);
    const bottom = top + (scroller.clientHeight || 512) + OVERSCAN;
    const to = Math.min(order.length, firstBelow(bottom) + 1);
    const wanted = new Set(order.slice(from, to));
    for (const [index, item] of drawn) {
      if (!wanted.has(index)) {
        item.remove();
        drawn.delete(index);
      }
    }
    let added = false;
    for (let k = from; k < to; k++) {
      if (!drawn.has(order[k])) {
        drawn.set(order[k], buildRow(rows[order[k]]));
        added = true;
      }
      drawn.get(order[k]).style.top = `${tops[k]}px`;
    }
    if (added) spacer.append(...order.slice(from, to).map((index) => drawn.get(index)));
    if (!scroller.isConnected || scroller.clientHeight === 0) return;
    const sizes = measured();
    let changed = false;
    for (let k = from; k < to; k++) {
      const height = drawn.get(order[k]).offsetHeight;
      if (height > 0 && height !== sizes.get(order[k])) {
        sizes.set(order[k], height);
        changed = true;
      }
    }
    if (changed) {
      layout();
      if (pass < 3) draw(pass + 1);
    }
  }

  function schedule() {
    if (!frame) {
      frame = requestAnimationFrame(() => {
        frame = 0;
        draw();
      });
    }
  }

  function redraw() {
    for (const item of drawn.values()) item.remove();
    drawn.clear();
    layout();
    draw();
  }

  function refresh() {
    root.dataset.view = state.view;
    toggle.textContent = state.view === "record" ? "show the request" : "show the record";
    toggle.setAttribute("aria-pressed", String(state.view === "request"));
    raw.setAttribute("aria-pressed", String(state.raw));
    requestVerdict.classList.toggle("al-current", state.view === "request");
    redraw();
  }

  function filter() {
    const query = state.query;
    order = rows.filter((row) => {
      if (!query) return true;
      if (haystacks[row.index] === undefined) haystacks[row.index] = haystack(row);
      return haystacks[row.index].includes(query);
    }).map((row) => row.index);
    const count = (number) => number.toLocaleString("en");
    found.textContent = query
      ? `${count(order.length)} of ${count(rows.length)} messages match` : "";
    scroller.scrollTop = 0;
    redraw();
  }

  function scrollToRow(index) {
    const k = order.indexOf(index);
    if (k < 0) return;
    scroller.scrollTop = Math.max(0, tops[k] - scroller.clientHeight / 3);
    draw();
  }

  function linkOf(target) {
    const chip = target.closest(".al-chip");
    if (chip && chip.dataset.callId) {
      return { callRow: Number(chip.dataset.row), callId: chip.dataset.callId,
        resultRow: chip.dataset.resultRow === undefined ? null : Number(chip.dataset.resultRow) };
    }
    const item = target.closest(".al-row");
    if (!item) return null;
    const row = rows[Number(item.dataset.index)];
    if (row.call_row === undefined) return null;
    return { callRow: row.call_row, callId: row.call_id, resultRow: row.index };
  }

  function repaint() {
    for (const item of drawn.values()) paint(item);
  }

  const listeners = [
    [toggle, "click", () => {
      state.view = state.view === "record" ? "request" : "record";
      refresh();
    }],
    [raw, "click", () => {
      state.raw = !state.raw;
      refresh();
    }],
    [search, "input", () => {
      state.query = search.value.trim().toLowerCase();
      filter();
    }],
    [scroller, "scroll", schedule],
    [spacer, "mouseover", (event) => {
      hover = linkOf(event.target);
      repaint();
    }],
    [spacer, "mouseleave", () => {
      hover = null;
      repaint();
    }],
    [spacer, "click", (event) => {
      const link = linkOf(event.target);
      if (!link) return;
      const same = state.pinned && state.pinned.callRow === link.callRow
        && state.pinned.callId === link.callId;
      state.pinned = same ? null : link;
      repaint();
      if (same) return;
      if (event.target.closest(".al-chip") && link.resultRow !== null) scrollToRow(link.resultRow);
      if (event.target.closest(".al-answers")) scrollToRow(link.callRow);
    }],
    [spacer, "toggle", (event) => {
      const item = event.target.closest(".al-row");
      if (!item || !event.target.classList.contains("al-rest")) return;
      const index = Number(item.dataset.index);
      if (event.target.open) state.open.add(index);
      else state.open.delete(index);
      schedule();
    }, true],
  ];
  for (const [target, type, handler, capture] of listeners) {
    target.addEventListener(type, handler, Boolean(capture));
  }
  const resized = new ResizeObserver(() => {
    if (scroller.clientWidth !== width) {
      width = scroller.clientWidth;
      heights.plain.clear();
      heights.raw.clear();
      layout();
    }
    schedule();
  });
  resized.observe(scroller);
  refresh();

  return () => {
    resized.disconnect();
    cancelAnimationFrame(frame);
    for (const [target, type, handler, capture] of listeners) {
      target.removeEventListener(type, handler, Boolean(capture));
    }
  };
}

// The requests a test's run sent the model: a heading, then number, shape and refusal each;
// the earlier ones behind "earlier".
function renderSent(parent, sent) {
  const block = node("div", "al-sent");
  block.append(node("p", "al-title", sent.heading));
  if (sent.not_kept) block.append(node("p", "al-note", `… ${sent.not_kept} earlier not kept`));
  const list = (requests) => {
    const items = node("ol", "al-sent-list");
    for (const request of requests) {
      const item = node("li", `al-sent-request${request.refused ? " al-bad" : ""}`);
      item.append(node("span", "al-index", request.number),
        node("code", "al-shape", request.shape));
      if (request.refused) item.append(node("span", "al-refused", `refused: ${request.refused}`));
      items.append(item);
    }
    return items;
  };
  if (sent.earlier && sent.earlier.length) {
    const details = node("details", "al-rest");
    details.append(node("summary", "", `${sent.earlier.length} earlier`), list(sent.earlier));
    block.append(details);
  }
  block.append(list(sent.shown || []));
  parent.append(block);
}

function renderReport(host, data) {
  const root = node("div", "al-report");
  root.append(node("p", `al-summary ${data.all_passed ? "al-ok" : "al-bad"}`, data.summary));
  const list = node("ul", "al-tests");
  const cleanups = [];
  let group = ""; // the tests of earlier lessons that still hold come under their heading
  for (const test of data.tests || []) {
    if ((test.group || "") !== group) {
      group = test.group || "";
      list.append(node("li", "al-group", group));
    }
    const item = node("li", `al-test al-outcome-${test.outcome}`);
    item.dataset.test = test.name;
    const heading = [node("span", "al-mark", test.mark),
      node("span", "al-sentence", test.sentence)];
    if (test.message || test.transcript || test.sent) {
      const details = node("details");
      details.open = Boolean(test.open); // a failure, unless it repeats a "not written yet"
      const summary = node("summary");
      summary.append(...heading);
      details.append(summary);
      if (test.message) {
        const message = node("div", "al-message");
        textBlock(message, test.message, "", false);
        details.append(message);
      }
      if (test.sent) renderSent(details, test.sent);
      if (test.transcript) cleanups.push(renderTranscript(details, test.transcript));
      item.append(details);
    } else {
      item.append(...heading);
    }
    list.append(item);
  }
  root.append(list);
  host.append(root);
  return () => cleanups.forEach((cleanup) => cleanup());
}

function draw(host, data) {
  return (data && data.kind === "report" ? renderReport : renderTranscript)(host, data || {});
}

function render({ model, el }) {
  let cleanup = draw(el, model.get("data"));
  const changed = () => {
    cleanup();
    el.replaceChildren();
    cleanup = draw(el, model.get("data"));
  };
  model.on("change:data", changed);
  return () => {
    model.off("change:data", changed);
    cleanup();
  };
}

export default { render };
