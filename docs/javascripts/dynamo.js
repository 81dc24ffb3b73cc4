// Page glue for the "Deploy with NVIDIA Dynamo" widget (an ES module, run once per tab).
//
// The model page carries the widget prerendered by builder.views.dynamo inside
// <div class="dy-mount" data-deployments-json>. This module only moves HTML:
//   - on a pill click it asks Python (builder.views.dynamo.page_state, in the page's one
//     Pyodide worker, shared with recipe-builder.js) for the widget and paints what comes back,
//   - keeps the widget's own URL keys (dynamo_*) in the query, leaving every other key alone,
//     and restores them on load,
//   - copies a step's commands, and shows a disabled pill's reason (Python's text) on tap.
// Pressed, disabled, the reasons, steps, comparison: all of it is in Python's HTML.

import { askPython, pythonReady } from "./builder-client.js";
import { copyText, mount } from "./site.js";

const PREFIX = "dynamo_";
const COPIED_MS = 1500;

function ownQuery(url = location) {
  const query = {};
  for (const [key, value] of new URLSearchParams(url.search)) {
    if (key.startsWith(PREFIX)) query[key] = value;
  }
  return query;
}

function writeURL(explicit) {
  const url = new URL(location.href);
  const params = new URLSearchParams(url.search);
  for (const key of [...params.keys()]) if (key.startsWith(PREFIX)) params.delete(key);
  for (const [key, value] of Object.entries(explicit)) params.set(key, value);
  url.search = params.toString();
  if (url.href !== location.href) history.replaceState(history.state, "", url.href);
}

class DynamoMount {
  constructor(element) {
    this.element = element;
    this.dataURL = new URL(element.dataset.deploymentsJson, location.href).href;
    this.explicit = this.readExplicit();
    this.pending = null;
    this.seq = 0;
    this.status = document.createElement("p");
    this.status.className = "rb-status";
    this.status.setAttribute("role", "status");
    this.status.hidden = true;
    element.prepend(this.status);
    element.addEventListener("click", (event) => this.onClick(event));
    const query = ownQuery();
    if (Object.keys(query).length) this.request(query, "Applying the selection from the link…");
  }

  get widget() {
    return this.element.querySelector(".dy-widget");
  }

  readExplicit() {
    try {
      return JSON.parse(this.widget?.dataset.explicit || "{}");
    } catch {
      return {};
    }
  }

  onClick(event) {
    const copy = event.target.closest("button.rb-copy");
    if (copy && this.element.contains(copy)) {
      this.copy(copy);
      return;
    }
    const pill = event.target.closest("button.dy-pill");
    if (!pill || !this.element.contains(pill)) return;
    if (pill.getAttribute("aria-disabled") === "true") {
      // Unavailable: show Python's reason (a tap does not focus a button in every browser).
      event.preventDefault();
      const why = document.getElementById(pill.getAttribute("aria-describedby"));
      for (const open of this.element.querySelectorAll(".dy-why.dy-open")) {
        if (open !== why) open.classList.remove("dy-open");
      }
      why?.classList.toggle("dy-open");
      pill.focus({ preventScroll: true });
      return;
    }
    const { key, value } = pill.dataset;
    this.request({ ...(this.pending ?? this.explicit), [key]: value }, "Loading the builder…");
  }

  async copy(button) {
    const code = button.closest(".dy-step")?.querySelector("pre code");
    if (!code) return;
    const ok = await copyText(code.textContent);
    button.textContent = ok ? "Copied" : "Copy failed";
    button.classList.toggle("rb-copied", ok);
    clearTimeout(button.dyTimer);
    button.dyTimer = setTimeout(() => {
      button.textContent = "Copy";
      button.classList.remove("rb-copied");
    }, COPIED_MS);
  }

  async request(query, waiting) {
    const seq = ++this.seq;
    this.pending = query;
    if (!pythonReady()) {
      this.widget?.setAttribute("aria-busy", "true");
      this.showStatus(waiting);
    }
    let state;
    try {
      state = await askPython("dynamo_state", { dataURL: this.dataURL, query });
    } catch (error) {
      if (seq === this.seq) this.showStatus(`The builder could not run (${error.message}).`);
      return;
    }
    if (seq !== this.seq || !this.element.isConnected) return;
    this.paint(state);
  }

  paint(state) {
    const old = this.widget;
    const template = document.createElement("template");
    template.innerHTML = state.html;
    const fresh = template.content.querySelector(".dy-widget");
    if (!fresh) return;
    // Keep what the reader opened and where the keyboard was.
    for (const details of old?.querySelectorAll("details[open]") ?? []) {
      const twin = fresh.querySelector(`details.${CSS.escape(details.classList[0])}`);
      if (twin) twin.open = true;
    }
    const focused = old?.contains(document.activeElement) ? document.activeElement : null;
    if (old) old.replaceWith(fresh);
    else this.element.append(fresh);
    if (focused?.matches("button.dy-pill")) {
      const { key, value } = focused.dataset;
      fresh
        .querySelector(`button.dy-pill[data-key="${CSS.escape(key)}"][data-value="${CSS.escape(value)}"]`)
        ?.focus({ preventScroll: true });
    }
    this.explicit = state.explicit;
    this.pending = null;
    this.hideStatus();
    writeURL(state.explicit);
    performance.mark("dy-paint");
  }

  showStatus(text) {
    this.status.textContent = text;
    this.status.hidden = false;
  }

  hideStatus() {
    this.status.hidden = true;
    this.status.textContent = "";
  }
}

mount(".dy-mount", "dyMount", (element) => new DynamoMount(element));
