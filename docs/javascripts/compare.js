// "Compare your command" on every model page (an ES module, run once per tab).
//
// The box is in the static HTML (site_plugins/recipes/configurations.py). On Compare (or
// Ctrl+Enter) this module sends the pasted text and the page's current selection — the URL
// query the builder widget keeps — to the tab's builder worker, which runs
// builder.compare.compare_state under Pyodide and returns HTML. Nothing is parsed or compared
// here: this file only moves text. When the widget repaints (another pill), the comparison is
// run again against the new selection.

import { callPython } from "./recipe-builder.js";

function queryFromURL() {
  const query = {};
  for (const [key, value] of new URLSearchParams(location.search)) query[key] = value;
  return query;
}

class CompareBox {
  constructor(element) {
    this.element = element;
    this.form = element.querySelector(".cmp-form");
    this.input = element.querySelector(".cmp-input");
    this.output = element.querySelector(".cmp-output");
    this.status = element.querySelector(".cmp-status");
    this.catalogURL = new URL(element.dataset.catalogJson, location.href).href;
    this.recipeURL = new URL(element.dataset.recipeJson, location.href).href;
    this.seq = 0;
    this.form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.run();
    });
    element.querySelector(".cmp-clear")?.addEventListener("click", () => this.clear());
    this.input.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        this.run();
      }
    });
    this.onPaint = () => {
      if (!element.isConnected) {
        document.removeEventListener("rb:paint", this.onPaint);
        return;
      }
      if (this.output.childElementCount && this.input.value.trim()) this.run();
    };
    document.addEventListener("rb:paint", this.onPaint);
  }

  clear() {
    this.seq++;
    this.input.value = "";
    this.output.replaceChildren();
    this.say("");
    this.input.focus();
  }

  say(text) {
    this.status.textContent = text;
  }

  async run() {
    const text = this.input.value;
    const seq = ++this.seq;
    this.say("Comparing… (the first time, Python starts in the page)");
    this.element.setAttribute("aria-busy", "true");
    let state;
    try {
      state = await callPython({
        type: "compare",
        catalogURL: this.catalogURL,
        recipeURL: this.recipeURL,
        query: queryFromURL(),
        text,
      });
    } catch (error) {
      if (seq === this.seq) this.say(`The comparison could not run (${error.message}).`);
      this.element.removeAttribute("aria-busy");
      return;
    }
    if (seq !== this.seq || !this.element.isConnected) return;
    this.element.removeAttribute("aria-busy");
    const template = document.createElement("template");
    template.innerHTML = state.html; // made and escaped by Python
    this.output.replaceChildren(template.content);
    this.say("");
    this.element.dispatchEvent(new CustomEvent("cmp:paint", { bubbles: true }));
  }
}

function wire() {
  for (const element of document.querySelectorAll(".cmp-box")) {
    if (!element.cmpBox) element.cmpBox = new CompareBox(element);
  }
}

if (typeof window.document$?.subscribe === "function") {
  window.document$.subscribe(wire);
} else if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", wire, { once: true });
} else {
  wire();
}
