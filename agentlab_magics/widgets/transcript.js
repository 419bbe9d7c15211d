// agentlab_magics views in the browser: a transcript, or a check report whose records are
// transcripts. Python has already judged everything (complaints, the request, which result
// answers which call); this module only draws the one JSON trait `data`. Every string from
// the data goes into the page as text (textContent, or a text node): none is parsed as HTML.

const OVERSCAN = 400; // pixels of rows kept drawn above and below the visible part
const GUESS = 60; // a row's height in pixels until it has been drawn and measured
// A browser lays out no box taller than some 33.5 million pixels (Chromium's limit): rows taller
// than TALLEST in all are scrolled through a spacer TALLEST high, each of its pixels standing for
// `scale` pixels of rows, so every row can be reached however many there are.
const TALLEST = 15_000_000;
const ROLES = new Set(["user", "assistant", "toolResult"]);
const MOVES = new Set(["ArrowDown", "ArrowUp", "Home", "End"]); // keys that go from row to row

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

// A transcript's header: its title and counts, shape, request's system and tools, verdicts.
// A long transcript is first drawn unjudged ("judging…"), and its header again once judged.
function drawHead(head, data, total) {
  head.replaceChildren();
  const line = node("div", "al-head");
  line.append(node("span", "al-title", data.source === "request" ? "Request" : "Record"),
    node("span", "al-counts", data.summary));
  head.append(line);
  if (data.shape) head.append(node("code", "al-shape", data.shape));
  if (data.meter && data.meter.length) head.append(node("p", "al-meter", data.meter.join(" · ")));
  if (data.format_note) head.append(node("p", "al-note", data.format_note));
  if (data.system !== undefined) head.append(node("p", "al-note", `system: ${data.system}`));
  if (data.tools) head.append(node("p", "al-note", `tools: ${data.tools.join(", ") || "(none)"}`));
  if (data.complete === false) {
    head.append(node("p", "al-verdict al-pending",
      `Judging ${total.toLocaleString("en")} messages: every row is already here to scroll through.`));
  } else if (data.verdict) {
    head.append(node("p", `al-verdict ${data.accepted ? "al-ok" : "al-bad"}`, data.verdict));
  }
  let requestVerdict = null;
  if (data.request_verdict) {
    requestVerdict = node("p", `al-verdict ${data.request_accepted ? "al-ok" : "al-bad"}`);
    requestVerdict.append(`${data.request_verdict} `, node("code", "al-shape", data.request_shape));
    head.append(requestVerdict);
  }
  if (data.record_note) head.append(node("p", "al-note", data.record_note));
  if (data.live) head.append(node("p", `al-live-state al-${data.live.state}`, liveLine(data.live)));
  if (data.key) head.append(drawKey(data.key));
  return requestVerdict;
}

// What the marks mean: a swatch and words for each kind of row held, then how chips work.
function drawKey(key) {
  const details = node("details", "al-key");
  details.append(node("summary", "", key.title));
  const list = node("ul", "al-key-list");
  for (const [kind, words] of key.marks) {
    const item = node("li");
    item.append(node("span", `al-swatch ${kind}`), words);
    list.append(item);
  }
  details.append(list);
  if (key.chips) details.append(node("p", "al-note", `${key.chips} ${key.keys}`));
  return details;
}

// A live run's state: running, with its time so far and what it has cost, or finished (the
// finished record's header then says what it cost).
function liveLine(live) {
  const seconds = `${Number(live.seconds).toFixed(1)} s`;
  if (live.state !== "running") {
    return `finished${live.reason ? ` (${live.reason})` : ""} in ${seconds}`;
  }
  return [`● running · ${seconds} so far`, ...(live.meter || [])].join(" · ");
}

function flaggedIn(row) {
  return Boolean((row.complaints && row.complaints.length) || row.problem
    || row.in_request === false);
}

function indicesOf(buffers) {
  const view = buffers && buffers[0];
  if (!view) return [];
  return Array.from(new Int32Array(view.buffer.slice(view.byteOffset,
    view.byteOffset + view.byteLength)));
}

// `data` holds every row ("complete", or a report's record), or, with the widget's `model`
// to ask the kernel, the first rows of a long transcript: the judgement, the other rows and
// search results are then asked for (widgets/transcript_feed.py) as they are needed.
function renderTranscript(host, given, model) {
  const data = { ...given }; // the header's words, judged once the kernel answers
  const total = data.total === undefined ? (data.rows || []).length : data.total;
  const remote = data.complete === false && model && typeof model.send === "function";
  const live = Boolean(data.live && data.live.state === "running"); // rows still coming
  const cache = new Map((data.rows || []).map((row) => [row.index, row]));
  const state = {
    view: data.view || "record", raw: false, query: "", open: new Set(), pinned: null,
  };
  const root = node("div", "al-transcript al-live");
  root.dataset.view = state.view;
  host.append(root);

  const headBox = node("div", "al-header");
  root.append(headBox);
  let requestVerdict = drawHead(headBox, data, total);

  const toolbar = node("div", "al-toolbar");
  const toggle = button("", "toggle-view");
  const raw = button("raw JSON", "toggle-raw");
  const next = button("next flagged ↓", "next-flagged");
  const search = node("input", "al-search");
  search.type = "search";
  search.placeholder = "search messages";
  search.setAttribute("aria-label", "Search the messages");
  search.dataset.action = "search";
  const found = node("span", "al-found");
  if (data.request_verdict) toolbar.append(toggle); // only where there is a request to show
  toolbar.append(raw, next, search, found);
  const scroller = node("div", "al-scroll");
  const spacer = node("div", "al-spacer");
  scroller.append(spacer);
  root.append(toolbar, scroller);

  const everyRow = () => Array.from({ length: total }, (_, k) => k);
  let flagged = remote ? [] : everyRow().filter((k) => cache.has(k) && flaggedIn(cache.get(k)));
  next.hidden = flagged.length === 0;
  const haystacks = [];
  const heights = { plain: new Map(), raw: new Map() };
  const drawn = new Map(); // row index -> its element, for the rows now in the DOM
  const asked = new Set(); // row indices asked of the kernel and not yet answered
  let order = everyRow(); // the rows that match the search
  let tops = new Float64Array(1);
  let frame = 0;
  let width = 0;
  let hidden = false; // whether the last draw found the scroller hidden
  let refocus = null; // the row whose element was taken out with the focus, to give it back
  let scale = 1; // pixels of rows to a pixel of the scroller (1 below TALLEST)
  let hover = null;
  let asks = 0; // the number of the latest search asked of the kernel
  let visited = -1; // the flagged row "next flagged" went to last
  let typing = 0;

  const measured = () => (state.raw ? heights.raw : heights.plain);

  function ask(question) {
    model.send(question);
  }

  // The rows in order[from..to) neither here nor asked for, asked for in runs of indices.
  function fetchMissing(from, to) {
    let start = -1;
    let end = -1;
    const flush = () => {
      if (start < 0) return;
      for (let index = start; index < end; index++) asked.add(index);
      ask({ want: "rows", from: start, to: end });
      start = -1;
    };
    for (let k = from; k < to; k++) {
      const index = order[k];
      if (cache.has(index) || asked.has(index)) {
        flush();
        continue;
      }
      if (start >= 0 && index !== end) flush();
      if (start < 0) start = index;
      end = index + 1;
    }
    flush();
  }

  function answered(content, buffers) {
    if (!content || typeof content !== "object") return;
    if (content.answer === "summary") {
      Object.assign(data, content.head, { complete: true });
      requestVerdict = drawHead(headBox, data, total);
      if (data.request_verdict && !toggle.isConnected) toolbar.prepend(toggle);
      flagged = indicesOf(buffers);
      next.hidden = flagged.length === 0;
    }
    if (content.answer === "summary" || content.answer === "rows") {
      for (const row of content.rows || []) {
        cache.set(row.index, row);
        asked.delete(row.index);
        takeOut(row.index);
      }
      refresh(false);
    }
    if (content.answer === "search" && content.ask === asks) {
      order = indicesOf(buffers);
      showFound();
      visited = -1;
      scroller.scrollTop = 0;
      redraw();
    }
  }

  function placeholder(index) {
    const item = node("div", "al-row al-waiting");
    item.dataset.index = index;
    item.tabIndex = -1; // a row still loading can hold the keys' place, as the row will
    item.append(node("div", "al-line", remote ? `${index} · loading…`
      : data.live ? `${index} · drawn in full once the run is over`
        : `${index} · not here: run the cell again, with its kernel, to see this row`));
    return item;
  }

  function complaintsShown(row) {
    const wanted = state.view === "request" ? "request" : "as_is";
    return (row.complaints || []).filter((complaint) => complaint[wanted]);
  }

  function buildRow(row) {
    const item = node("div", "al-row");
    item.dataset.index = row.index;
    item.tabIndex = -1; // the arrow keys go from row to row
    item.classList.add(`al-role-${ROLES.has(row.role) ? row.role : "other"}`);
    const complaints = complaintsShown(row);
    if (complaints.length || row.problem) item.classList.add("al-flagged");
    if (row.is_error || row.stop_reason === "error") item.classList.add("al-is-error");
    if (row.in_request === false && state.view === "request") item.classList.add("al-left-out");
    if (row.call_id) item.dataset.callId = row.call_id;

    const line = node("div", "al-line");
    line.append(node("span", "al-index", row.number ?? row.index), node("span", "al-role", row.role));
    if (row.tool_name) line.append(node("span", "al-tag", row.tool_name));
    if (row.role === "toolResult") {
      const where = row.call_row !== undefined ? `row ${row.call_number ?? row.call_row}`
        : row.call_not_kept ? "its call is not kept" : "no such call";
      const answers = node("button", "al-tag al-answers", `answers ${row.call_id} · ${where}`);
      answers.type = "button";
      answers.dataset.action = "go-to-call";
      line.append(answers);
    }
    if (row.is_error) line.append(node("span", "al-tag al-error", "is_error"));
    if (row.stop_reason) line.append(node("span", "al-tag", `stop_reason: ${row.stop_reason}`));
    if (row.in_request === false) line.append(node("span", "al-tag al-out", data.left_out_label));
    for (const words of row.meter || []) line.append(node("span", "al-tag al-took", words));
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
          const chip = node("button", "al-chip");
          chip.type = "button";
          chip.dataset.row = row.index;
          if (call.id) chip.dataset.callId = call.id;
          if (call.result_row !== undefined) chip.dataset.resultRow = call.result_row;
          chip.append(withHits(node("span", "al-call-id"), call.id || "(no id)", state.query), " ",
            withHits(node("span", "al-call-name"), call.name || "?", state.query),
            withHits(node("span", "al-call-args"), ` ${call.arguments}`, state.query),
            call.result_row !== undefined ? ` → row ${call.result_number ?? call.result_row}`
              + (call.out_of_place ? ", out of place" : "")
              : live ? " → running…" : call.not_kept ? " → its result is not kept"
                : " → no result");
          calls.append(chip);
        }
        body.append(calls);
      }
    }
    item.append(body);
    if (complaints.length) {
      const list = node("ul", "al-complaints");
      for (const complaint of complaints) {
        const said = complaint.note ? `${complaint.text} (${complaint.note})` : complaint.text;
        const entry = withHits(node("li"), said, state.query);
        if (state.view === "record" && data.request_verdict && !complaint.request) {
          entry.classList.add("al-soft");
          entry.append(" (not in the request context_for_model computes)");
        }
        list.append(entry);
      }
      item.append(list);
    }
    if (row.gap_after) item.append(node("div", "al-gap al-note", row.gap_after));
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
    const height = tops[order.length];
    const box = scroller.clientHeight || 512;
    scale = height > TALLEST ? (height - box) / (TALLEST - box) : 1;
    spacer.style.height = `${Math.min(height, TALLEST)}px`;
  }

  // Where the rows stand at the top of the scroller's box (in pixels of rows), and going there.
  const rowsAt = () => scroller.scrollTop * scale;
  function goTo(y) {
    scroller.scrollTop = Math.floor(y / scale);
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

  // A drawn row out of the page, to be drawn anew (loaded, judged): where it had the focus, the
  // row drawn in its place takes it.
  function takeOut(index) {
    const item = drawn.get(index);
    if (item?.contains(root.ownerDocument.activeElement)) refocus = index;
    item?.remove();
    drawn.delete(index);
  }

  // Draw the rows in and near view, measure them, and redo the layout while guesses were wrong.
  // Hidden for a moment (JupyterLab hides the page while it swaps themes), the scroller says it
  // is at the top: nothing is drawn then, and the next frame or the observer of its size draws
  // the rows where it is once it shows again.
  function draw(pass = 0) {
    if (scroller.isConnected && scroller.clientHeight === 0) {
      if (!hidden) {
        hidden = true;
        schedule();
      }
      return;
    }
    hidden = false;
    const top = rowsAt();
    const atEnd = top > 0 && scroller.scrollTop + scroller.clientHeight >= scroller.scrollHeight - 2;
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
      const row = cache.get(order[k]);
      const item = drawn.get(order[k]);
      if (!item || (row && item.classList.contains("al-waiting"))) {
        if (item) takeOut(order[k]);
        drawn.set(order[k], row ? buildRow(row) : placeholder(order[k]));
        added = true;
      }
      drawn.get(order[k]).style.top = `${tops[k] - top + scroller.scrollTop}px`;
    }
    if (remote) fetchMissing(from, to);
    if (added) { // in row order, each row new to the page put in its place: a row already
      let next = null; // there is never moved, which would take the focus from it
      for (let k = to - 1; k >= from; k--) {
        const item = drawn.get(order[k]);
        if (item.parentNode !== spacer || item.nextSibling !== next) spacer.insertBefore(item, next);
        next = item;
      }
    }
    if (refocus !== null && drawn.has(refocus)) {
      drawn.get(refocus).focus({ preventScroll: true });
      refocus = null;
    }
    if (!scroller.isConnected) return; // nothing to measure yet (a hidden one never got here)
    const sizes = measured();
    let changed = false;
    for (let k = from; k < to; k++) {
      const item = drawn.get(order[k]);
      const height = item.offsetHeight;
      if (height > 0 && height !== sizes.get(order[k]) && !item.classList.contains("al-waiting")) {
        sizes.set(order[k], height);
        changed = true;
      }
    }
    if (changed) {
      layout();
      if (atEnd) scroller.scrollTop = scroller.scrollHeight; // scrolled to the end: stay there
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

  function refresh(again = true) {
    if (!again) {
      schedule();
      return;
    }
    root.dataset.view = state.view;
    toggle.textContent = state.view === "record" ? "show the request" : "show the record";
    toggle.setAttribute("aria-pressed", String(state.view === "request"));
    raw.setAttribute("aria-pressed", String(state.raw));
    if (requestVerdict) requestVerdict.classList.toggle("al-current", state.view === "request");
    redraw();
  }

  function showFound() {
    const count = (number) => number.toLocaleString("en");
    found.textContent = state.query
      ? `${count(order.length)} of ${count(total)} messages match` : "";
  }

  // Search the rows here, or (a long transcript) ask the kernel, which searches every
  // message's whole text; only the answer to the latest question is drawn.
  function filter() {
    const query = state.query;
    if (remote && query) {
      asks += 1;
      found.textContent = "searching…";
      ask({ want: "search", query, ask: asks });
      return;
    }
    asks += 1;
    const anchor = order[firstBelow(rowsAt())]; // the row at the top before
    order = everyRow().filter((index) => {
      if (!query) return true;
      if (!cache.has(index)) return false;
      if (haystacks[index] === undefined) haystacks[index] = haystack(cache.get(index));
      return haystacks[index].includes(query);
    });
    showFound();
    visited = -1;
    layout();
    // a search starts at its first match; clearing it keeps in view the row that was at the top
    const kept = query || anchor === undefined ? -1 : order.indexOf(anchor);
    goTo(kept < 0 ? 0 : tops[kept]);
    redraw();
  }

  // A row a search hides, about to be gone to (a link's other end), is shown: the search is
  // cleared.
  function reveal(index) {
    if (!state.query || order.includes(index)) return;
    search.value = "";
    state.query = "";
    filter();
  }

  // The keyboard, while it is in the transcript: the arrow keys go from row to row, Home and
  // End to the first and the last, Escape hands it back to the notebook. No other key reaches
  // the notebook, whose command mode would act on it (b adds a cell, dd deletes one), but one
  // with Ctrl, Alt or Cmd (Ctrl+S saves).
  function keyed(event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    event.stopPropagation();
    if (event.key === "Escape") {
      event.preventDefault();
      handBack();
    } else if (MOVES.has(event.key) && event.target !== search) {
      event.preventDefault();
      moveTo(event.key);
    }
  }

  function moveTo(key) {
    if (!order.length) return;
    const item = root.ownerDocument.activeElement?.closest?.(".al-row");
    const at = item ? order.indexOf(Number(item.dataset.index)) : -1;
    const step = key === "ArrowDown" ? 1 : -1;
    const k = key === "Home" ? 0 : key === "End" ? order.length - 1
      : at < 0 ? firstBelow(rowsAt()) : Math.min(order.length - 1, Math.max(0, at + step));
    for (let pass = 0; pass < 3; pass++) { // drawing measures rows, which moves them: again
      if (tops[k] < rowsAt()) goTo(tops[k]);
      else if (tops[k + 1] > rowsAt() + scroller.clientHeight) {
        goTo(Math.min(tops[k], tops[k + 1] - scroller.clientHeight));
      }
      draw();
    }
    drawn.get(order[k])?.focus({ preventScroll: true });
  }

  function handBack() {
    root.ownerDocument.activeElement?.blur?.();
    const notebook = root.closest(".jp-Notebook") || root.closest(".jp-Cell");
    notebook?.focus?.();
  }

  // The first flagged row after the last one gone to (or the top row, if scrolled past it),
  // round to the first again after the last.
  function nextFlagged() {
    const shown = new Set(order);
    const at = Math.max(visited, order[firstBelow(rowsAt())] - 1);
    const after = flagged.find((index) => index > at && shown.has(index));
    const target = after === undefined ? flagged.find((index) => shown.has(index)) : after;
    if (target === undefined) return;
    visited = target;
    scrollToRow(target);
  }

  function scrollToRow(index) {
    const k = order.indexOf(index);
    if (k < 0) return;
    goTo(Math.max(0, tops[k] - scroller.clientHeight / 3));
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
    const row = cache.get(Number(item.dataset.index));
    if (!row || row.call_row === undefined) return null;
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
      clearTimeout(typing);
      if (remote) typing = setTimeout(filter, 150);
      else filter();
    }],
    [next, "click", nextFlagged],
    [scroller, "scroll", schedule],
    [spacer, "mouseover", (event) => {
      hover = linkOf(event.target);
      repaint();
    }],
    [spacer, "mouseleave", () => {
      hover = null;
      repaint();
    }],
    [spacer, "focusin", (event) => { // the keyboard lights a link as the mouse does
      hover = linkOf(event.target);
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
      if (event.target.closest(".al-chip") && link.resultRow !== null) {
        reveal(link.resultRow);
        scrollToRow(link.resultRow);
        drawn.get(link.resultRow)?.querySelector(".al-answers")?.focus({ preventScroll: true });
      }
      if (event.target.closest(".al-answers")) {
        reveal(link.callRow);
        scrollToRow(link.callRow);
        drawn.get(link.callRow)?.querySelector(`.al-chip[data-call-id="${CSS.escape(link.callId)}"]`)
          ?.focus({ preventScroll: true });
      }
    }],
    [spacer, "toggle", (event) => {
      const item = event.target.closest(".al-row");
      if (!item || !event.target.classList.contains("al-rest")) return;
      const index = Number(item.dataset.index);
      if (event.target.open) state.open.add(index);
      else state.open.delete(index);
      schedule();
    }, true],
    [root, "keydown", keyed],
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
  if (remote) {
    model.on("msg:custom", answered);
    ask({ want: "summary" });
  }
  refresh();
  let ticking = 0;
  if (live) { // a running view follows the newest row, and its clock runs between events
    scroller.scrollTop = scroller.scrollHeight;
    draw();
    const since = performance.now();
    const clock = headBox.querySelector(".al-live-state");
    ticking = setInterval(() => {
      clock.textContent = liveLine({ ...data.live,
        seconds: data.live.seconds + (performance.now() - since) / 1000 });
    }, 200);
  }

  return () => {
    clearInterval(ticking);
    resized.disconnect();
    cancelAnimationFrame(frame);
    clearTimeout(typing);
    if (remote) model.off("msg:custom", answered);
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

// A run beside the expected one, numbered from its start, the first place they part marked:
// the events a run told, or its requests beside the reference's (report_view.SideBySide).
const EVENTS = { css: "al-events", caption: "The events your run told, beside the expected ones",
  heads: ["#", "yours", "expected"], blank: "" };
const PARTING = { css: "al-events al-parting", caption: "Where your run parts from the reference's",
  heads: ["turn", "your request", "the reference's"], blank: "(no request)" };

function renderSideBySide(parent, rows, kind) {
  const table = node("table", kind.css);
  table.append(node("caption", "al-title",
    rows.summary ? `${kind.caption}. ${rows.summary}` : kind.caption));
  const head = node("tr");
  head.append(...kind.heads.map((text) => node("th", "", text)));
  table.append(head);
  const count = Math.max(rows.yours.length, rows.expected.length);
  for (let index = 0; index < count; index++) {
    const parts = index === rows.first ? "al-parts" : index > rows.first ? "al-after" : "";
    const row = node("tr", parts);
    const cell = (text) => { const td = node("td"); td.append(node("code", "", text || kind.blank)); return td; };
    row.append(node("td", "al-index", String(index + (rows.start || 1))), cell(rows.yours[index]),
      cell(rows.expected[index]));
    table.append(row);
  }
  parent.append(table);
}

// The drawings of a test or a shared cause: events, the parting from the reference, requests
// sent, record.
function renderPanels(parent, drawn, cleanups) {
  if (drawn.events) renderSideBySide(parent, drawn.events, EVENTS);
  if (drawn.parting) renderSideBySide(parent, drawn.parting, PARTING);
  if (drawn.sent) renderSent(parent, drawn.sent);
  if (drawn.transcript) cleanups.push(renderTranscript(parent, drawn.transcript));
}

function renderReport(host, data) {
  const root = node("div", "al-report");
  root.append(node("p", `al-summary ${data.all_passed ? "al-ok" : "al-bad"}`, data.summary));
  if (data.problem && (data.tests || []).length) root.append(node("p", "al-problem", data.problem));
  const list = node("ul", "al-tests");
  const cleanups = [];
  for (const cause of data.causes || []) { // a cause several tests share: its lead, drawn once
    const block = node("div", "al-cause");
    block.append(node("p", "al-lead", cause.lead));
    renderPanels(block, cause, cleanups);
    root.append(block);
  }
  // The tests of earlier lessons that still hold come under their group's heading; a group
  // whose tests all pass is that one line, opened on a click.
  let group = "", into = list;
  for (const test of data.tests || []) {
    if ((test.group || "") !== group) {
      group = test.group || "";
      into = list;
      const folded = (data.folded || {})[group];
      if (folded) {
        const heading = node("li", "al-group al-folded"), details = node("details");
        into = node("ul", "al-held");
        details.append(node("summary", "", folded), into);
        heading.append(details);
        list.append(heading);
      } else {
        list.append(node("li", "al-group", group));
      }
    }
    const item = node("li", `al-test al-outcome-${test.outcome}`);
    item.dataset.test = test.name;
    const mark = node("span", "al-mark", test.mark);
    mark.title = test.outcome;
    const heading = [mark, node("span", "al-sentence", test.sentence)];
    if (test.message || test.transcript || test.sent || test.events || test.parting) {
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
      renderPanels(details, test, cleanups);
      item.append(details);
    } else {
      item.append(...heading);
    }
    into.append(item);
  }
  root.append(list);
  if (data.key) root.append(node("p", "al-key", `Marks: ${data.key}`)); // what "!" and "◷" mean
  host.append(root);
  return () => cleanups.forEach((cleanup) => cleanup());
}

// Two runs side by side, the rows widgets/run_diff.py made: a toolbar to show only the turns
// that differ, find a word in either run and go to where the runs part; a click on a fold
// shows the same turns it stands for.
function renderDiff(host, data) {
  const view = node("div", "al-transcript al-diff");
  const head = node("div", "al-head");
  head.append(node("span", "al-title", data.title));
  view.append(head, node("p", `al-verdict ${data.parted === null ? "al-ok" : "al-bad"}`,
    data.summary), node("p", "al-legend", data.legend));
  const toolbar = node("div", "al-toolbar");
  if (data.parted !== null) {
    toolbar.append(button(`go to turn ${data.parted.toLocaleString("en")}, where they part`,
      "go-to-parting"));
  }
  const only = button("only what differs", "only-differs");
  only.setAttribute("aria-pressed", "false");
  const search = node("input", "al-search");
  search.type = "search";
  search.placeholder = "find in both runs";
  search.setAttribute("aria-label", "Find in both runs");
  const found = node("span", "al-found");
  toolbar.append(only, search, found);
  const table = node("table", "al-diff-table");
  const heading = node("tr");
  heading.append(node("th", "", "turn"), node("th", "", data.names[0]),
    node("th", "", data.names[1]));
  const thead = node("thead");
  thead.append(heading);
  const body = node("tbody");
  table.append(thead, body);
  view.append(toolbar, table);

  const drawn = data.rows.map((row) => {
    const line = node("tr");
    if (row.note !== undefined) {
      line.className = "al-fold";
      const cell = node("td", "", row.note);
      cell.colSpan = 3;
      line.append(cell);
      if (row.unfolds) {
        line.dataset.action = "unfold";
        line.title = "show these turns";
        line.tabIndex = 0; // a fold is a control: reached with Tab, opened with Enter or Space
        line.setAttribute("role", "button");
      }
    } else {
      line.className = `al-turn al-state-${row.state}${row.parts ? " al-parts" : ""}`;
      line.dataset.turn = row.turn;
      const number = node("td", "al-turn-number", row.mark);
      if (row.parts) number.append(node("span", "al-tag al-parts-tag", "parts here"));
      line.append(number, ...[row.left, row.right].map((lines) => {
        if (lines === null) return node("td", "al-absent", "—");
        const cell = node("td");
        cell.append(node("pre", "al-text", lines));
        return cell;
      }));
    }
    body.append(line);
    return { row, line, words: `${row.left || ""}\n${row.right || ""}`.toLowerCase() };
  });
  host.append(view);

  const unfolded = new Set(); // the folds clicked open
  function apply() {
    const query = search.value.trim().toLowerCase();
    const differs = only.getAttribute("aria-pressed") === "true";
    let fold = null;
    let matches = 0;
    for (const { row, line, words } of drawn) {
      if (row.note !== undefined) fold = row;
      else if (!row.folded) fold = null;
      const hit = Boolean(query) && row.note === undefined && words.includes(query);
      matches += hit ? 1 : 0;
      const open = row.folded ? unfolded.has(fold) : row.note === undefined || !unfolded.has(row);
      const shown = query ? hit : open && !(differs && (row.state === "same" || row.note));
      line.style.display = shown ? "" : "none";
    }
    found.textContent = query ? `${matches.toLocaleString("en")} turn${matches === 1 ? "" : "s"}`
      : "";
  }
  const clicked = (event) => {
    const target = event.target.closest("[data-action]");
    if (!target) return;
    if (target.dataset.action === "only-differs") {
      only.setAttribute("aria-pressed", String(only.getAttribute("aria-pressed") !== "true"));
    } else if (target.dataset.action === "go-to-parting") {
      search.value = "";
      only.setAttribute("aria-pressed", "false");
      apply();
      body.querySelector("tr.al-parts").scrollIntoView({ block: "center" });
      return;
    } else if (target.dataset.action === "unfold") {
      unfolded.add(drawn.find((item) => item.line === target).row);
      const had = target === document.activeElement;
      apply();
      const first = target.nextElementSibling; // the first of the turns the fold stood for
      if (had && first) { // the fold is hidden now: the keyboard goes on from what it showed
        first.tabIndex = -1;
        first.focus();
      }
      return;
    }
    apply();
  };
  const pressed = (event) => {
    if ((event.key === "Enter" || event.key === " ") && event.target.matches("tr[data-action]")) {
      event.preventDefault();
      event.target.click();
    }
  };
  view.addEventListener("click", clicked);
  view.addEventListener("keydown", pressed);
  search.addEventListener("input", apply);
  apply();
  return () => {
    view.removeEventListener("click", clicked);
    view.removeEventListener("keydown", pressed);
    search.removeEventListener("input", apply);
  };
}

function draw(host, data, model) {
  if (data && data.kind === "diff") return renderDiff(host, data);
  return data && data.kind === "report" ? renderReport(host, data)
    : renderTranscript(host, data || {}, model);
}

// A new state is drawn on the next frame, and only the latest of the states that came before
// it: a live run's many small states never queue up behind one another.
function render({ model, el }) {
  let cleanup = draw(el, model.get("data"), model);
  let frame = 0;
  const redraw = () => {
    frame = 0;
    cleanup();
    el.replaceChildren();
    cleanup = draw(el, model.get("data"), model);
  };
  const changed = () => {
    if (!frame) frame = requestAnimationFrame(redraw);
  };
  model.on("change:data", changed);
  return () => {
    model.off("change:data", changed);
    cancelAnimationFrame(frame);
    cleanup();
  };
}

export default { render };
