// "Compare your command" on every model page (an ES module, run once per tab).
//
// The box is in the static HTML (site_plugins/recipes/configurations.py). On Compare (or
// Ctrl+Enter) this module sends the pasted text and the page's current selection — the URL
// query the builder widget keeps, with the page's own base (a variant page's variant, the
// widget's data-base) — to the tab's builder worker, which runs
// builder.diff.compare.compare_state under Pyodide and returns HTML. Nothing is parsed or compared
// here: this file only moves text. When the widget repaints (another pill), the comparison is
// run again against the new selection. Its data URLs are relative to the page, as the
// widget's are, so the site works under any sub-path.

import { callPython } from "./builder-client.js";
import { mount } from "./site.js";

// [key, value] pairs, as the widget sends them: no object keys ("__proto__" is a key like any).
function queryFromURL() {
  return [...new URLSearchParams(location.search)];
}

// The page's own selection (a variant page's variant): the builder widget's data-base.
function pageBase() {
  try {
    const pairs = JSON.parse(document.querySelector(".rb-mount")?.dataset.base || "[]");
    return Array.isArray(pairs) ? pairs.filter((p) => Array.isArray(p) && p.length === 2) : [];
  } catch {
    return [];
  }
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
        base: pageBase(),
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

mount(".cmp-box", "cmpBox", (element) => new CompareBox(element));
