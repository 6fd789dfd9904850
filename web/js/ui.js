// Small DOM helpers. Text only ever goes in through textContent: nothing from a note, an answer
// or the daemon is parsed as HTML, so a note containing <script> shows as those characters.

export function $(selector) {
  return document.querySelector(selector);
}

export function el(tag, props = {}, children = []) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key === "text") node.textContent = value;
    else if (key === "className") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  node.append(...children);
  return node;
}

export function show(node, visible) {
  node.hidden = !visible;
}

export function showMessage(node, text, kind = "info") {
  node.textContent = text;
  node.dataset.kind = kind;
  node.hidden = !text;
}
