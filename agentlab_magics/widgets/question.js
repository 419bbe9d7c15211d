// A diagnosis question in the browser. Before an answer: the prompt and the options as
// buttons (or a text box for an open question). Committing sets `answer` on the model; Python
// records it and sends back `data` with the verdicts and the full answer, drawn here.
// Every string goes into the page as text, never as HTML.

function node(tag, className, text) {
  const made = document.createElement(tag);
  if (className) made.className = className;
  if (text !== undefined && text !== null) made.textContent = String(text);
  return made;
}

function commit(model, answer) {
  model.set("answer", answer);
  model.save_changes();
}

function option(data, choice, model) {
  const item = node("li", `al-option${choice.chosen ? " al-chosen" : ""}`);
  if (data.committed) {
    item.append(node("span", "", `${choice.letter}. ${choice.text}`));
    const verdict = choice.correct ? "right" : "wrong";
    item.append(node("p", `al-why al-${verdict}`,
      `${verdict === "right" ? "Right" : "Wrong"}: ${choice.why}`));
  } else {
    const pick = node("button", "al-pick", `${choice.letter}. ${choice.text}`);
    pick.type = "button";
    pick.dataset.action = "commit";
    pick.dataset.letter = choice.letter;
    pick.addEventListener("click", () => commit(model, choice.letter));
    item.append(pick);
  }
  return item;
}

function ownWords(model) {
  const form = node("div", "al-own-words");
  const box = node("textarea", "al-answer-box");
  box.rows = 3;
  box.placeholder = "Your answer, in your own words";
  box.setAttribute("aria-label", "Your answer, in your own words");
  const send = node("button", "", "Commit my answer");
  send.type = "button";
  send.dataset.action = "commit";
  send.addEventListener("click", () => {
    if (box.value.trim()) commit(model, box.value.trim());
  });
  form.append(box, send);
  return form;
}

function draw(host, data, model) {
  const root = node("div", "al-question");
  root.dataset.question = data.id;
  root.append(node("p", "al-prompt", data.prompt));
  if (data.options.length) {
    const list = node("ol", "al-options al-lettered");  // the letters are in the text
    for (const choice of data.options) list.append(option(data, choice, model));
    root.append(list);
  } else if (!data.committed) {
    root.append(ownWords(model));
  }
  if (data.notice) root.append(node("p", "al-notice", data.notice));
  if (data.committed) {
    root.append(node("p", "al-committed",
      `Your answer (${data.committed.at.slice(0, 10)}): ${data.committed.answer}`));
    const reveal = node("details");
    reveal.open = true;
    reveal.append(node("summary", "", "The answer"), node("p", "al-answer", data.answer));
    root.append(reveal);
  } else if (data.hint) {
    const hint = node("details");
    hint.append(node("summary", "", "A hint"), node("p", "al-hint", data.hint));
    root.append(hint);
  }
  host.append(root);
}

function render({ model, el }) {
  draw(el, model.get("data"), model);
  const changed = () => {
    const keyboardHere = el.contains(document.activeElement);
    el.replaceChildren();
    draw(el, model.get("data"), model);
    // The button that committed is gone: the keyboard lands on the answer it committed.
    const landing = el.querySelector(".al-committed");
    if (keyboardHere && landing) {
      landing.tabIndex = -1;
      landing.focus();
    }
  };
  model.on("change:data", changed);
  return () => model.off("change:data", changed);
}

export default { render };
