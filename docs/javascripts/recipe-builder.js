// Page glue for the recipe builder widget (an ES module, a model page's own, run once per tab).
//
// Every model page carries the widget prerendered by builder.views.widget inside
// <div class="rb-mount" data-hf-id data-recipe-json data-catalog-json data-states-json>. This
// module
//   - on a pill click shows the widget the build prerendered for that click, when it is one
//     click away from the page's own selection (builder.views.widget.neighbours, in the JSON
//     file data-states-json names, fetched as soon as this runs; a click that comes before it
//     arrives waits for it; looked up by the query the click sends, never worked out here),
//   - else asks the builder's Python (Pyodide, in a module worker shared by the site's tabs
//     where the browser can: builder-worker.js) for page_state(selection) and patches the
//     HTML it returns into the page in place (focus, the live region, the reader's role tab
//     and open disclosures survive). Python is fetched once the page has loaded and the
//     browser is idle, or at once when a click or a link needs it,
//   - keeps the explicit selection in the URL query (one history entry per change, so Back
//     undoes the last choice), restores it on load and on Back/Forward,
//   - copies a command block's text, and refuses to while the command shown is not the one
//     the pills ask for (a link or a click still being applied),
//   - moves focus within a pill row with the arrow keys (one Tab stop per row) and shows an
//     unavailable pill's reason under its row when the pill is focused or tapped,
//   - shows the widget's compact bar (summary, Copy) while the output is scrolled away and
//     the pill rows are on screen.
// It decides nothing about commands or availability: pressed, disabled and their reasons,
// the notice for a bad URL, which URL keys are someone else's, every command's text all come
// from Python, at build time or in the worker. A click makes no network request.
// mkdocs-material's instant navigation swaps pages without reloading: pages are wired
// through document$ (site.js onPage), the worker (and Python in it) lives as long as a tab
// of the site.

import { askPython, python, startPythonWhenIdle } from "./builder-client.js";
import { copyText, mount, onPage } from "./site.js";

const COPIED_MS = 1500;
// The states one click away of the pages seen lately in this tab (their states file's URL →
// {parts, states}), the newest last.
const STATES = new Map();
const STATES_KEPT = 4;
const SLOW_MS = 10_000;


function pageState(mount, pairs) {
  return askPython("page_state", {
    catalogURL: mount.catalogURL,
    recipeURL: mount.recipeURL,
    query: pairs,
    base: mount.base, // what a URL key that cannot be honoured falls back to (page_state)
  });
}

// ----------------------------------------------------------------------- URL state
// A query is a list of [key, value] pairs: no object keys, so "__proto__" is a key like any.

function pairsFromURL(url = location) {
  return [...new URLSearchParams(url.search)];
}

function readPairs(text) {
  try {
    const pairs = JSON.parse(text || "[]");
    return Array.isArray(pairs) ? pairs.filter((p) => Array.isArray(p) && p.length === 2) : [];
  } catch {
    return [];
  }
}

function sameQuery(a, b) {
  const text = (pairs) => new URLSearchParams(pairs).toString();
  return text(a) === text(b);
}

function withChoice(pairs, key, value) {
  const out = pairs.filter(([k]) => k !== key);
  out.push([key, value]);
  return out;
}

// ----------------------------------------------------------------------- patching in place
// Python's fresh HTML is patched into the widget on screen: elements that stand for the same
// thing (a row, a pill, a role, a block) are kept and updated, so focus, the aria-live region
// and scroll positions survive, and only what changed is touched.

function keyOf(node) {
  if (node.nodeType !== 1) return `#${node.nodeType}`;
  const d = node.dataset;
  if (d.key !== undefined) {
    // A feature's toggle flips its value (it asks for the other state): one key for both.
    const toggle = node.parentElement?.classList.contains("rb-feature");
    return `pill:${d.key}:${toggle ? "toggle" : d.value}`;
  }
  if (d.row !== undefined) return `row:${d.row}`;
  if (d.feature !== undefined) return `feature:${d.feature}`;
  if (d.brand !== undefined) return `brand:${d.brand}`;
  if (d.roleTab !== undefined) return `tab:${d.roleTab}`;
  if (d.copy !== undefined) return `copy:${d.copy}`;
  return `${node.nodeName}.${node.getAttribute("class") || ""}:${d.role || ""}`;
}

function patch(old, fresh) {
  if (old.nodeType !== 1) {
    if (old.data !== fresh.data) old.data = fresh.data;
    return;
  }
  for (const name of old.getAttributeNames()) {
    // An open disclosure stays open: that is the reader's, not Python's.
    if (name === "open" && old.nodeName === "DETAILS") continue;
    if (!fresh.hasAttribute(name)) old.removeAttribute(name);
  }
  for (const name of fresh.getAttributeNames()) {
    const value = fresh.getAttribute(name);
    if (old.getAttribute(name) !== value) old.setAttribute(name, value);
  }
  patchChildren(old, fresh);
}

// Children are matched by what they stand for (keyOf), in order among equals.
function patchChildren(parent, freshParent) {
  const olds = [...parent.childNodes];
  const byKey = new Map();
  for (const node of olds) {
    const key = keyOf(node);
    if (!byKey.has(key)) byKey.set(key, []);
    byKey.get(key).push(node);
  }
  const kept = new Set();
  const order = [];
  for (const node of [...freshParent.childNodes]) {
    const match = byKey.get(keyOf(node))?.shift();
    if (match && match.nodeName === node.nodeName) {
      kept.add(match);
      // An unchanged subtree (most rows, most clicks) is compared natively, not walked.
      if (!match.isEqualNode(node)) patch(match, node);
      order.push(match);
    } else {
      order.push(node);
    }
  }
  // Remove first, then insert: kept nodes never move relative to each other (moving a
  // focused element would blur it).
  for (const node of olds) if (!kept.has(node)) node.remove();
  order.forEach((node, index) => {
    const at = parent.childNodes[index];
    if (at !== node) parent.insertBefore(node, at ?? null);
  });
}

// ----------------------------------------------------------------------- one widget

const STALE_LINK = "Applying the link's choices…";
const STALE_CLICK = "Applying your choice…";

class Mount {
  constructor(element) {
    this.element = element;
    this.hfId = element.dataset.hfId;
    this.path = location.pathname;
    this.recipeURL = new URL(element.dataset.recipeJson, location.href).href;
    this.catalogURL = new URL(element.dataset.catalogJson, location.href).href;
    this.explicit = this.readExplicit();
    this.foreign = this.readForeign();
    // A variant's own page (/<variant model id>/) starts from its variant: base pairs that
    // the URL's own keys override, and that the URL leaves out. Python gets them too
    // (page_state's `base`): a URL value it cannot honour falls back to them, never to the
    // recipe's default.
    this.base = readPairs(element.dataset.base);
    this.seq = 0; // the latest request; older answers are dropped
    this.pending = null; // the selection asked for and not painted yet
    this.why = null; // the unavailable pill whose reason is shown
    this.status = document.createElement("p");
    this.status.className = "rb-status";
    this.status.id = `rb-status-${(this.hfId || "widget").replace(/[^A-Za-z0-9_-]/g, "-")}`;
    this.status.setAttribute("role", "status");
    this.status.hidden = true;
    element.prepend(this.status);
    this.role = null; // the command role tab the reader picked, kept across repaints
    this.slowTimer = 0;
    element.addEventListener("click", (event) => this.onClick(event));
    element.addEventListener("keydown", (event) => this.onKeydown(event));
    element.addEventListener("focusin", (event) => this.onFocus(event));
    this.wireTabs(this.widget);
    this.onPython = () => this.pythonChanged();
    python.listeners.add(this.onPython);

    // The page's own state (what Back to its address shows) and the prerendered states one
    // click away from it (parsed when needed).
    this.initial = {
      key: JSON.stringify(this.withBase([])),
      html: this.widget?.outerHTML ?? "",
      explicit: Object.fromEntries(this.explicit),
    };
    // {parts, states} once fetched (at once for a page seen lately in this tab: Back to it
    // through instant navigation paints its URL's state in the same task), null if none.
    const states = this.element.dataset.statesJson;
    this.statesURL = states ? new URL(states, location.href).href : "";
    this.nextData = STATES.get(this.statesURL);
    this.nextLoad = this.nextData === undefined ? this.loadNext() : Promise.resolve();
    this.barSeen = new Map(); // the elements the bar depends on -> on screen
    this.watchBar();
    const pairs = pairsFromURL();
    if (this.ownPairs(pairs).length) this.request(this.withBase(pairs), { from: "url" });
    if (!python.worker) {
      startPythonWhenIdle(() => this.prepare());
    } else {
      this.prepare();
    }
    if (python.failed) this.pythonChanged();
  }

  // Load this page's data into Python and run the builder once, so that a click Python
  // answers is fast.
  prepare() {
    if (!this.connected) return;
    python.worker?.postMessage({
      type: "prepare",
      catalogURL: this.catalogURL,
      recipeURL: this.recipeURL,
    });
  }

  // builder.views.widget.neighbours of the prerendered state, from the page's states file:
  // sets nextData to {parts, states}, or to null when there is none or it cannot be read.
  async loadNext() {
    const url = this.statesURL;
    if (!url) {
      this.nextData = null;
      return;
    }
    try {
      const response = await fetch(url);
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const data = await response.json();
      this.nextData = data && data.states && Array.isArray(data.parts) ? data : null;
      STATES.delete(url);
      STATES.set(url, this.nextData);
      if (STATES.size > STATES_KEPT) STATES.delete(STATES.keys().next().value);
    } catch (error) {
      console.error("recipe builder: the prerendered states could not be read:", error);
      this.nextData = null;
    }
  }

  // What the build prerendered for the query `pairs` (the very pairs a click sends), as
  // Python's page_state would answer it; null when it is not one click from the page's own.
  prerendered(pairs) {
    const key = JSON.stringify(pairs);
    if (key === this.initial.key && this.initial.html) {
      const { html, explicit } = this.initial;
      return { html, explicit, notice: "", foreign: {}, prerendered: true };
    }
    const next = this.nextData;
    const known = next?.states?.[key];
    if (!known) return null;
    const { parts } = next;
    const html = known.html.map((item) => (Array.isArray(item)
      ? parts.slice(item[0], item[1] + 1).join("") : parts[item])).join("");
    return { html, explicit: known.explicit, notice: "", foreign: {}, prerendered: true };
  }

  // The compact bar shows while no command's Copy of the output is on screen and the pill
  // rows are (the markup is Python's; which of the two is on screen, the browser's).
  watchBar() {
    const widget = this.widget;
    if (!widget || typeof IntersectionObserver !== "function") return;
    const heads = [...widget.querySelectorAll(
      ".rb-output .rb-block:not(.rb-request) > .rb-block-head")]; // commands, not the request
    const rows = widget.querySelector(".rb-rows");
    const watched = [...heads, rows].filter(Boolean);
    if (this.barWatched && watched.length === this.barWatched.length
        && watched.every((node, i) => node === this.barWatched[i])) return;
    if (!this.barObserver) {
      const header = document.querySelector(".md-header");
      const top = header ? Math.round(header.getBoundingClientRect().height) : 0;
      this.barObserver = new IntersectionObserver((entries) => {
        for (const entry of entries) this.barSeen.set(entry.target, entry.isIntersecting);
        this.updateBar();
      }, { rootMargin: `-${top}px 0px 0px 0px` });
    }
    this.barObserver.disconnect();
    this.barSeen.clear();
    this.barWatched = watched;
    this.barRows = rows;
    for (const node of watched) this.barObserver.observe(node);
  }

  updateBar() {
    const rows = this.barSeen.get(this.barRows) === true;
    const copy = this.barWatched.some((node) => node !== this.barRows
      && this.barSeen.get(node) !== false && node.isConnected && !node.closest("[hidden]"));
    if (rows && !copy) this.element.dataset.bar = "on";
    else delete this.element.dataset.bar;
  }

  // "Show the command": back to the output, focus on its first Copy.
  showOutput() {
    const widget = this.widget;
    const output = widget?.querySelector(".rb-output");
    if (!output) return;
    const header = document.querySelector(".md-header");
    const top = output.getBoundingClientRect().top + window.scrollY
      - (header ? header.getBoundingClientRect().height : 0) - 8;
    window.scrollTo({ top: Math.max(0, top) });
    const copy = [...output.querySelectorAll("button.rb-copy")]
      .find((button) => !button.closest("[hidden]"));
    copy?.focus({ preventScroll: true });
  }

  get widget() {
    return this.element.querySelector(".rb-widget");
  }

  get connected() {
    return this.element.isConnected;
  }

  readExplicit() {
    try {
      return Object.entries(JSON.parse(this.widget?.dataset.explicit || "{}"));
    } catch {
      return [];
    }
  }

  // Which URL keys are someone else's (the theme's, another widget's) is Python's list.
  readForeign() {
    try {
      const { keys = [], prefixes = [] } = JSON.parse(this.widget?.dataset.foreign || "{}");
      return { keys, prefixes };
    } catch {
      return { keys: [], prefixes: [] };
    }
  }

  isForeign(key) {
    return this.foreign.keys.includes(key) || this.foreign.prefixes.some((p) => key.startsWith(p));
  }

  ownPairs(pairs) {
    return pairs.filter(([key]) => !this.isForeign(key));
  }

  withBase(pairs) {
    const given = new Set(pairs.map(([key]) => key));
    return [...this.base.filter(([key]) => !given.has(key)), ...pairs];
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
    if (event.target.closest("button.rb-bar-show") && this.element.contains(event.target)) {
      this.showOutput();
      return;
    }
    const pill = event.target.closest("button.rb-pill");
    if (!pill || !this.element.contains(pill)) return;
    if (pill.getAttribute("aria-disabled") === "true") {
      // Unavailable: Python wrote the reason under the row; a tap shows it.
      event.preventDefault();
      this.showWhy(pill);
      return;
    }
    this.showWhy(null);
    const { key, value } = pill.dataset;
    this.request(withChoice(this.pending ?? this.explicit, key, value), { pill });
  }

  onFocus(event) {
    const pill = event.target.closest?.("button.rb-pill");
    if (!pill) return;
    setRowStop(pill);
    if (pill.getAttribute("aria-disabled") === "true") this.showWhy(pill);
    // Hiding a reason moves the rows below it: not between a mouse button's press and its
    // release (the click would land elsewhere); the click itself repaints.
    else if (pill.matches(":focus-visible")) this.showWhy(null);
  }

  // Arrow keys move within a pill row (one Tab stop per row) and within the role tab list.
  onKeydown(event) {
    const item = event.target.closest("button.rb-pill, button.rb-role-tab");
    if (!item || event.altKey || event.ctrlKey || event.metaKey) return;
    const group = item.matches(".rb-pill") ? item.closest(".rb-row") : item.parentElement;
    const items = [...group.querySelectorAll(item.matches(".rb-pill") ? "button.rb-pill"
      : "button.rb-role-tab")];
    const at = items.indexOf(item);
    const next = {
      ArrowRight: items[(at + 1) % items.length],
      ArrowDown: items[(at + 1) % items.length],
      ArrowLeft: items[(at - 1 + items.length) % items.length],
      ArrowUp: items[(at - 1 + items.length) % items.length],
      Home: items[0],
      End: items[items.length - 1],
    }[event.key];
    if (!next) return;
    event.preventDefault();
    if (item.matches(".rb-role-tab")) {
      this.role = next.dataset.roleTab;
      selectRole(item.closest(".rb-widget"), this.role);
    }
    next.focus();
  }

  showWhy(pill) {
    const widget = this.widget;
    if (!widget) return;
    const id = pill?.getAttribute("aria-describedby") || null;
    this.why = pill ? pillKey(pill) : null;
    for (const why of widget.querySelectorAll(".rb-why")) why.hidden = why.id !== id;
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
    if (button.getAttribute("aria-disabled") === "true") {
      this.status.hidden = false; // the reason is already in the status line
      return;
    }
    // The bar's Copy copies the output's block of the same number; a file's Copy its file.
    const block = button.closest(".rb-block, .rb-file-block") ?? this.widget?.querySelector(
      `.rb-output .rb-copy[data-copy="${CSS.escape(button.dataset.copy ?? "")}"]`,
    )?.closest(".rb-block");
    const code = block?.querySelector("pre code");
    if (!code) return;
    const ok = await copyText(code.textContent);
    button.textContent = ok ? "Copied" : "Copy failed";
    button.classList.toggle("rb-copied", ok);
    clearTimeout(button.rbTimer);
    button.rbTimer = setTimeout(() => {
      if (button.getAttribute("aria-disabled") === "true") return;
      button.textContent = "Copy";
      button.classList.remove("rb-copied");
    }, COPIED_MS);
  }

  // The command shown is not the one asked for: no copying until it is.
  setStale(reason) {
    const widget = this.widget;
    if (!widget) return;
    if (reason) widget.setAttribute("aria-busy", "true");
    else widget.removeAttribute("aria-busy");
    for (const button of widget.querySelectorAll("button.rb-copy")) {
      if (reason) {
        clearTimeout(button.rbTimer);
        button.setAttribute("aria-disabled", "true");
        button.setAttribute("aria-describedby", this.status.id);
        button.textContent = "Wait…";
        button.classList.remove("rb-copied");
      } else if (button.getAttribute("aria-disabled") === "true") {
        button.removeAttribute("aria-disabled");
        button.removeAttribute("aria-describedby");
        button.textContent = "Copy";
      }
    }
    if (!reason) for (const pill of widget.querySelectorAll(".rb-waiting")) {
      pill.classList.remove("rb-waiting");
    }
  }

  request(pairs, { pill = null, from = "click" } = {}) {
    const seq = ++this.seq;
    this.pending = pairs;
    this.pendingFrom = from;
    performance.mark("rb-request");
    this.answer(seq, pairs, pill, from);
  }

  answer(seq, pairs, pill, from) {
    const known = this.prerendered(pairs);
    if (!known && this.nextData === undefined) {
      // The states one click away are still on their way: this click is likely among them.
      // Until they come, the pill says it is pending and Copy keeps the old command back.
      pill?.classList.add("rb-waiting");
      this.setStale(from === "click" ? STALE_CLICK : STALE_LINK);
      this.nextLoad.then(() => {
        if (seq === this.seq && this.connected) this.answer(seq, pairs, pill, from);
      });
      return;
    }
    if (known) {
      this.paint(known, from);
      // A running Python hears of it all the same: it keeps the answer and works out the
      // clicks after this one while the reader looks (builder-worker.js). Nothing waits. One
      // still starting is not told (it would fetch its data before the reader needs it).
      if (python.ready && !python.failed) pageState(this, pairs).catch(() => {});
      return;
    }
    if (python.failed) {
      this.pythonChanged();
      return;
    }
    if (!python.ready) {
      // Python is still loading: say so, and keep Copy from handing out the old command.
      pill?.classList.add("rb-waiting");
      const reason = from === "click" ? STALE_CLICK : STALE_LINK;
      this.showStatus(`${reason} The builder is still loading; Copy waits for the command.`);
      this.setStale(reason);
      clearTimeout(this.slowTimer);
      this.slowTimer = setTimeout(() => {
        if (this.pending && !python.ready && !python.failed) {
          this.showStatus(`${reason} The builder is still loading (about 10 MB the first ` +
            "time); Copy waits for the command.");
        }
      }, SLOW_MS);
    }
    this.ask(seq, pairs, from);
  }

  async ask(seq, pairs, from) {
    let state;
    try {
      state = await pageState(this, pairs);
    } catch (error) {
      if (seq === this.seq && !python.failed) {
        this.failed(`The builder could not run (${error.message}).`);
      }
      return;
    }
    if (seq !== this.seq || !this.connected) return;
    this.paint(state, from);
  }

  paint(state, from) {
    const started = performance.now();
    const old = this.widget;
    const template = document.createElement("template");
    template.innerHTML = state.html;
    const fresh = template.content.querySelector(".rb-widget");
    if (!fresh) return;
    if (old) patch(old, fresh);
    else this.element.append(fresh);
    const widget = this.widget;
    this.wireTabs(widget);
    this.explicit = Object.entries(state.explicit);
    this.pending = null;
    clearTimeout(this.slowTimer);
    this.hideStatus();
    this.setStale(null);
    // The focused pill stays its row's Tab stop; its reason stays shown if it has one.
    const focused = document.activeElement?.closest?.("button.rb-pill");
    if (focused && widget.contains(focused)) setRowStop(focused);
    const why = this.why && widget.querySelector(`button.rb-pill[data-key="${CSS.escape(
      this.why[0])}"][data-value="${CSS.escape(this.why[1])}"][aria-disabled="true"]`);
    this.showWhy(why || null);
    this.writeURL(state, from === "click" ? "push" : "replace");
    this.watchBar();
    // For benchmarks: Python's time in the worker (and whether it answered from what it
    // kept or worked out ahead), this patch on the main thread, and where the HTML came from.
    performance.measure("rb-patch", { start: started, end: performance.now() });
    if (typeof state.ms === "number") {
      performance.measure("rb-python", {
        start: started, duration: state.ms, detail: { kept: Boolean(state.kept) },
      });
    }
    const source = state.prerendered ? "prerendered" : state.kept ? "kept" : "python";
    performance.mark("rb-paint", { detail: { source } });
    this.element.dispatchEvent(new CustomEvent("rb:paint", { bubbles: true }));
  }

  // Our keys from Python's `explicit`, everybody else's as they were in the URL.
  writeURL(state, how) {
    const url = new URL(location.href);
    const params = new URLSearchParams();
    for (const [key, value] of pairsFromURL()) if (this.isForeign(key)) params.append(key, value);
    for (const [key, value] of Object.entries(state.explicit)) {
      if (!this.base.some(([k, v]) => k === key && v === value)) params.append(key, value);
    }
    url.search = params.toString();
    if (url.href === location.href) return;
    if (how === "push") history.pushState(null, "", url.href);
    else history.replaceState(history.state, "", url.href);
  }

  failed(message) {
    // Back to what the page shows: the last painted (or prerendered) command, usable.
    this.pending = null;
    clearTimeout(this.slowTimer);
    this.setStale(null);
    this.showStatus(message);
  }

  pythonChanged() {
    if (!this.connected) {
      python.listeners.delete(this.onPython);
      return;
    }
    if (python.failed) {
      const what = this.pending && this.pendingFrom !== "click"
        ? "so the link's choices were not applied"
        : "so the choices cannot be changed";
      this.failed(`The builder could not start (${python.failed}), ${what}. The command ` +
        "shown matches the pressed pills and can be copied.");
      this.element.classList.add("rb-failed");
    }
  }

  // The URL changed under us (Back/Forward, or a link to this page with another query):
  // show what it asks for.
  followURL(url) {
    if (!this.connected || url.pathname !== this.path) return;
    const pairs = this.withBase(pairsFromURL(url));
    const own = this.ownPairs(pairs);
    if (sameQuery(own, this.ownPairs(this.pending ?? this.explicit))) return;
    this.request(pairs, { from: "history" });
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

function pillKey(pill) {
  return [pill.dataset.key, pill.dataset.value];
}

// Roving tabindex: the focused pill becomes its row's one Tab stop.
function setRowStop(pill) {
  const row = pill.closest(".rb-row");
  if (!row) return;
  for (const other of row.querySelectorAll("button.rb-pill")) {
    other.tabIndex = other === pill ? 0 : -1;
  }
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

window.rbPython = python; // for benchmarks and tests: phases, ready, failed

function followURL(url) {
  for (const element of document.querySelectorAll(".rb-mount")) element.rbMount?.followURL(url);
}

// The theme's location$ tells of URL changes it makes; subscribed once, with the first page
// (before its widgets are wired, as onPage calls run in order).
let following = false;
onPage(() => {
  if (!following && typeof window.location$?.subscribe === "function") {
    following = true;
    window.location$.subscribe((url) => followURL(url));
  }
});
mount(".rb-mount", "rbMount", (element) => new Mount(element));
window.addEventListener("popstate", () => followURL(new URL(location.href)));
