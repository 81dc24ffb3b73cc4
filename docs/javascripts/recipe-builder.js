// Page glue for the recipe builder widget (an ES module, run once per tab).
//
// Every model page carries the widget prerendered by builder.view inside
// <div class="rb-mount" data-hf-id data-recipe-json data-catalog-json>. This module
//   - boots the builder's Python (Pyodide) once per tab in a module Web Worker,
//   - on a pill click asks Python for page_state(selection) and paints the HTML it returns,
//   - keeps the explicit selection in the URL query, restores it on load,
//   - copies a command block's text.
// It decides nothing about commands or availability: pressed, disabled and their reasons,
// the notice for a bad URL, every command's text all come from Python's HTML.
// mkdocs-material's instant navigation swaps pages without reloading: pages are wired
// through document$, the worker (and Python in it) lives as long as the tab.

const SITE = new URL("../", import.meta.url);
const PYODIDE_URL = new URL("assets/pyodide/", SITE).href;
const BUILDER_URL = new URL("assets/builder/", SITE).href;
// Keys answered from JSON rendered at build time while Python is still loading.
const PRERENDERED = { hardware: "hw", strategy: "strategies" };
const COPIED_MS = 1500;

// ----------------------------------------------------------------------- the worker

const python = {
  worker: null,
  ready: false,
  failed: null,
  calls: new Map(), // id -> {resolve, reject}
  nextId: 1,
  listeners: new Set(), // called with no argument when Python is ready or has failed
};

function startPython() {
  if (python.worker) return python.worker;
  python.worker = new Worker(new URL("builder-worker.js", import.meta.url), {
    type: "module",
    name: "recipe-builder",
  });
  python.worker.onmessage = ({ data }) => {
    if (data.type === "ready" || data.type === "result") markReady();
    if (data.type === "failed") {
      python.failed = data.error;
      console.error("recipe builder: Python failed to start:", data.error);
      for (const { reject } of python.calls.values()) reject(new Error(data.error));
      python.calls.clear();
      notify();
      return;
    }
    const call = python.calls.get(data.id);
    if (!call) return;
    python.calls.delete(data.id);
    if (data.type === "result") call.resolve(data);
    else call.reject(new Error(data.error));
  };
  python.worker.onerror = (event) => {
    python.failed = event.message || "worker error";
    notify();
  };
  python.worker.postMessage({ type: "init", pyodideURL: PYODIDE_URL, builderURL: BUILDER_URL });
  return python.worker;
}

function whenIdleAfterLoad(callback) {
  const idle = () =>
    "requestIdleCallback" in window
      ? requestIdleCallback(callback, { timeout: 1000 })
      : setTimeout(callback, 100);
  if (document.readyState === "complete") idle();
  else window.addEventListener("load", idle, { once: true });
}

function markReady() {
  if (python.ready) return;
  python.ready = true;
  performance.mark("rb-python-ready");
  notify();
}

function notify() {
  for (const listener of python.listeners) listener();
}

// One call to the worker's Python; other widgets of the page (dynamo.js) use it too, so a tab
// runs one Pyodide.
export function askPython(type, payload) {
  if (python.failed) return Promise.reject(new Error(python.failed));
  const id = python.nextId++;
  return new Promise((resolve, reject) => {
    python.calls.set(id, { resolve, reject });
    startPython().postMessage({ type, id, ...payload });
  });
}

export function pythonReady() {
  return python.ready;
}

// The same call as one message object ({type, ...payload}); compare.js uses this form.
export function callPython(message) {
  const { type, ...payload } = message;
  return askPython(type, payload);
}

function pageState(mount, query) {
  return askPython("page_state", {
    catalogURL: mount.catalogURL,
    recipeURL: mount.recipeURL,
    query,
  });
}

// ----------------------------------------------------------------------- URL state

function queryFromURL(url = location) {
  const query = {};
  for (const [key, value] of new URLSearchParams(url.search)) query[key] = value;
  return query;
}

function sameQuery(a, b) {
  return new URLSearchParams(a).toString() === new URLSearchParams(b).toString();
}

function writeURL(explicit) {
  const url = new URL(location.href);
  url.search = new URLSearchParams(explicit).toString();
  if (url.href !== location.href) history.replaceState(history.state, "", url.href);
}

// ----------------------------------------------------------------------- clipboard

async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // No async clipboard (insecure origin, denied permission): the old selection trick.
    const area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.append(area);
    area.select();
    let ok = false;
    try {
      ok = document.execCommand("copy");
    } catch {
      ok = false;
    }
    area.remove();
    return ok;
  }
}

// ----------------------------------------------------------------------- one widget

class Mount {
  constructor(element) {
    this.element = element;
    this.hfId = element.dataset.hfId;
    this.path = location.pathname;
    this.recipeURL = new URL(element.dataset.recipeJson, location.href).href;
    this.catalogURL = new URL(element.dataset.catalogJson, location.href).href;
    this.explicit = this.readExplicit();
    this.seq = 0; // the latest request; older answers are dropped
    this.pending = null; // the selection asked for and not painted yet
    this.status = document.createElement("p");
    this.status.className = "rb-status";
    this.status.setAttribute("role", "status");
    this.status.hidden = true;
    element.prepend(this.status);
    this.role = null; // the command role tab the reader picked, kept across repaints
    element.addEventListener("click", (event) => this.onClick(event));
    element.addEventListener("keydown", (event) => this.onKeydown(event));
    this.wireTabs(this.widget);
    this.onPython = () => this.pythonChanged();
    python.listeners.add(this.onPython);

    const query = queryFromURL();
    if (Object.keys(query).length) {
      this.request(query, { fromURL: true });
    } else {
      // The prerendered command is already on screen: start Python once the page has loaded
      // and the main thread is idle, so compiling Pyodide does not compete with first paint.
      // A click before then starts it at once (pageState).
      whenIdleAfterLoad(() => {
        if (!this.connected) return;
        startPython().postMessage({
          type: "prepare",
          catalogURL: this.catalogURL,
          recipeURL: this.recipeURL,
        });
      });
    }
  }

  get widget() {
    return this.element.querySelector(".rb-widget");
  }

  get connected() {
    return this.element.isConnected;
  }

  readExplicit() {
    try {
      return JSON.parse(this.widget?.dataset.explicit || "{}");
    } catch {
      return {};
    }
  }

  onClick(event) {
    const tab = event.target.closest("button.rb-role-tab");
    if (tab && this.element.contains(tab)) {
      this.role = tab.dataset.roleTab;
      selectRole(tab.closest(".rb-widget"), this.role);
      return;
    }
    const copy = event.target.closest("button.rb-copy");
    if (copy && this.element.contains(copy)) {
      this.copy(copy);
      return;
    }
    const pill = event.target.closest("button.rb-pill");
    if (!pill || !this.element.contains(pill)) return;
    if (pill.getAttribute("aria-disabled") === "true") {
      // Unavailable: Python put the reason in the title; the pill stays focusable.
      event.preventDefault();
      return;
    }
    const { key, value } = pill.dataset;
    const base = this.pending ?? this.explicit;
    const query = { ...base, [key]: value };
    this.request(query, { pill });
  }

  // The role tab list (several commands): arrow keys, Home and End move between tabs.
  onKeydown(event) {
    const tab = event.target.closest("button.rb-role-tab");
    if (!tab) return;
    const tabs = [...tab.parentElement.querySelectorAll("button.rb-role-tab")];
    const at = tabs.indexOf(tab);
    const next = {
      ArrowRight: tabs[(at + 1) % tabs.length],
      ArrowLeft: tabs[(at - 1 + tabs.length) % tabs.length],
      Home: tabs[0],
      End: tabs[tabs.length - 1],
    }[event.key];
    if (!next) return;
    event.preventDefault();
    this.role = next.dataset.roleTab;
    selectRole(tab.closest(".rb-widget"), this.role);
    next.focus();
  }

  wireTabs(widget) {
    const tabs = widget ? [...widget.querySelectorAll("button.rb-role-tab")] : [];
    if (!tabs.length) return;
    const roles = tabs.map((tab) => tab.dataset.roleTab);
    const first = tabs.find((tab) => tab.getAttribute("aria-selected") === "true") ?? tabs[0];
    const id = `rb-${(this.hfId || "widget").replace(/[^A-Za-z0-9_-]/g, "-")}`;
    for (const tab of tabs) {
      const panel = widget.querySelector(`.rb-role[data-role="${CSS.escape(tab.dataset.roleTab)}"]`);
      tab.id = `${id}-tab-${tab.dataset.roleTab}`;
      if (panel) {
        panel.id = `${id}-panel-${tab.dataset.roleTab}`;
        tab.setAttribute("aria-controls", panel.id);
        panel.setAttribute("aria-labelledby", tab.id);
      }
    }
    selectRole(widget, roles.includes(this.role) ? this.role : first.dataset.roleTab);
    widget.querySelector(".rb-output")?.setAttribute("data-tabs", "live");
  }

  async copy(button) {
    const code = button.closest(".rb-block")?.querySelector("pre code");
    if (!code) return;
    const ok = await copyText(code.textContent);
    button.textContent = ok ? "Copied" : "Copy failed";
    button.classList.toggle("rb-copied", ok);
    clearTimeout(button.rbTimer);
    button.rbTimer = setTimeout(() => {
      button.textContent = "Copy";
      button.classList.remove("rb-copied");
    }, COPIED_MS);
  }

  request(query, { pill = null, fromURL = false } = {}) {
    const seq = ++this.seq;
    this.pending = query;
    performance.mark("rb-request");
    if (python.ready) {
      this.ask(seq, query);
      return;
    }
    // Python is still loading: say so, answer from build-time JSON when it has this exact
    // selection, and let Python answer (and correct) as soon as it is up.
    pill?.classList.add("rb-waiting");
    this.widget?.setAttribute("aria-busy", "true");
    this.showStatus(fromURL ? "Applying the selection from the link…" : "Loading the builder…");
    this.ask(seq, query);
    this.fromPrerendered(seq, query);
  }

  async ask(seq, query) {
    let state;
    try {
      state = await pageState(this, query);
    } catch (error) {
      if (seq === this.seq) this.showStatus(`The builder could not run (${error.message}).`);
      return;
    }
    if (seq !== this.seq || !this.connected) return;
    this.paint(state);
  }

  async fromPrerendered(seq, query) {
    const keys = Object.keys(query);
    if (keys.length !== 1 || !(keys[0] in PRERENDERED)) return;
    const [key] = keys;
    const base = this.recipeURL.replace(/\.json$/, "");
    const url = `${base}/${PRERENDERED[key]}/${encodeURIComponent(query[key])}.json`;
    let data;
    try {
      const response = await fetch(url, { credentials: "same-origin" });
      if (!response.ok) return;
      data = await response.json();
    } catch {
      return;
    }
    const html = data.widget_html;
    if (typeof html !== "string" || seq !== this.seq || python.ready || !this.connected) return;
    // The same builder made this HTML at build time for exactly this selection.
    this.paint({ html, explicit: query, notice: "" });
  }

  paint(state) {
    const old = this.widget;
    const focused = document.activeElement;
    const focus = old?.contains(focused) ? describeFocus(focused) : null;
    const template = document.createElement("template");
    template.innerHTML = state.html;
    const fresh = template.content.querySelector(".rb-widget");
    if (!fresh) return;
    this.wireTabs(fresh);
    if (old) old.replaceWith(fresh);
    else this.element.append(fresh);
    this.explicit = state.explicit;
    this.pending = null;
    this.hideStatus();
    if (focus) restoreFocus(fresh, focus);
    writeURL(state.explicit);
    performance.mark("rb-paint");
    this.element.dispatchEvent(new CustomEvent("rb:paint", { bubbles: true }));
  }

  pythonChanged() {
    if (!this.connected) {
      python.listeners.delete(this.onPython);
      return;
    }
    if (python.failed && this.pending) {
      this.widget?.removeAttribute("aria-busy");
      this.showStatus("The builder could not start; the command shown is the prerendered one.");
    }
  }

  // A link to this same page with another query: mkdocs-material only pushes the URL (no
  // document$ for the same path), so the selection follows the URL here.
  followURL(url) {
    if (!this.connected || url.pathname !== this.path) return;
    const query = queryFromURL(url);
    if (sameQuery(query, this.pending ?? this.explicit)) return;
    this.request(query, { fromURL: true });
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

// Keyboard focus survives a re-render: the same key/value pill, else (a feature toggle flips
// its value) the toggle of the same feature, else the first pill of that key.
function describeFocus(element) {
  const pill = element.closest("button.rb-pill");
  if (pill) {
    const toggle = pill.parentElement?.matches(".rb-feature") ?? false;
    return { key: pill.dataset.key, value: pill.dataset.value, toggle };
  }
  const copy = element.closest("button.rb-copy");
  if (copy) return { copy: copy.dataset.copy };
  const tab = element.closest("button.rb-role-tab");
  if (tab) return { tab: tab.dataset.roleTab };
  return null;
}

function restoreFocus(widget, focus) {
  let target = null;
  if (focus.copy !== undefined) {
    target = widget.querySelector(`button.rb-copy[data-copy="${CSS.escape(focus.copy)}"]`);
  } else if (focus.tab !== undefined) {
    target = widget.querySelector(
      `button.rb-role-tab[data-role-tab="${CSS.escape(focus.tab)}"]`,
    ) || widget.querySelector("button.rb-role-tab[aria-selected='true']");
  } else {
    const key = CSS.escape(focus.key);
    target =
      widget.querySelector(
        `button.rb-pill[data-key="${key}"][data-value="${CSS.escape(focus.value)}"]`,
      ) ||
      (focus.toggle &&
        widget.querySelector(`.rb-feature[data-feature="${key}"] > button.rb-pill`)) ||
      widget.querySelector(`button.rb-pill[data-key="${key}"]`);
  }
  target?.focus({ preventScroll: true });
}

// Show one role's commands; the tab list is Python's, which role is shown is the reader's.
function selectRole(widget, role) {
  for (const tab of widget.querySelectorAll("button.rb-role-tab")) {
    const on = tab.dataset.roleTab === role;
    tab.setAttribute("aria-selected", on ? "true" : "false");
    tab.tabIndex = on ? 0 : -1;
  }
  for (const panel of widget.querySelectorAll(".rb-role")) panel.hidden = panel.dataset.role !== role;
}

// ----------------------------------------------------------------------- wiring

function wire() {
  for (const element of document.querySelectorAll(".rb-mount")) {
    if (!element.rbMount) element.rbMount = new Mount(element);
  }
}

if (typeof window.document$?.subscribe === "function") {
  window.document$.subscribe(wire);
  window.location$?.subscribe?.((url) => {
    for (const element of document.querySelectorAll(".rb-mount")) element.rbMount?.followURL(url);
  });
} else if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", wire, { once: true });
} else {
  wire();
}
