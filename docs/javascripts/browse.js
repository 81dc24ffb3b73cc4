// Home page model browser: show the cards that match the search and the filters, recount every
// filter option, keep the filters in the URL (each change is a history entry, so back and
// forward step through them; a shared link restores them). The URL is written a moment after
// the cards are shown (history.pushState costs more than the filtering itself), once per
// typed search, and at once when a link is followed or the page is left; changes made within
// that moment share one entry.
//
// The cards, their facet values, the words each is found by, the options and their labels are
// all in the static HTML, made at build time (site_plugins/recipes/browse.py and
// model_search.py, whose docstrings state the rules); this only hides, shows, orders and
// counts. The search's matching is model_search.py's `rank`, word for word (a browser test
// checks that the two agree). Wired through mkdocs-material's document$ so
// instant navigation back to the home page works. An ES module: the home page's own
// (mkdocs.yml extra.page_assets), run once per tab.

import { mount } from "./site.js";

(function () {
  "use strict";

  const compact = (text) => text.toLowerCase().replace(/[-_\s]+/g, "");

  const split = (text) => (text ? text.split(" ") : []);

  // ------------------------------------------------------------ search (model_search.py)

  const EXACT = 0, PREFIX = 1, PART = 2, TYPO = 3;
  const TAG = 4;
  const FUZZY_MIN = 4;
  const fuzzy = (word) => word.length >= FUZZY_MIN && !/\d/.test(word);

  // a and b differ by one letter added, dropped or changed.
  function oneEdit(a, b) {
    if (Math.abs(a.length - b.length) > 1 || a === b) return false;
    if (a.length > b.length) [a, b] = [b, a];
    let i = 0;
    while (i < a.length && a[i] === b[i]) i += 1;
    return a.slice(i + (a.length === b.length ? 1 : 0)) === b.slice(i + 1);
  }

  // How well a card matches one query word (lower is better), -1 if it does not.
  function wordScore(word, card, typos) {
    let best = -1;
    for (let cls = 0; cls < 2; cls++) {
      for (const candidate of cls ? card.tags : card.names) {
        let way;
        if (candidate === word) way = EXACT;
        else if (candidate.startsWith(word)) way = PREFIX;
        else if (cls === 0 && candidate.includes(word)) way = PART;
        else if (typos && oneEdit(word, candidate)) way = TYPO;
        else continue;
        const score = way + TAG * cls;
        if (best < 0 || score < best) best = score;
      }
    }
    return best;
  }

  // Each card's score for the query (-1: not a match).
  function scores(query, cards) {
    const words = query.split(/\s+/).map(compact).filter(Boolean);
    const totals = cards.map(() => 0);
    for (const word of words) {
      let per = cards.map((card) => wordScore(word, card, false));
      if (fuzzy(word) && per.every((s) => s < 0)) {
        per = cards.map((card) => wordScore(word, card, true));
      }
      per.forEach((s, i) => {
        totals[i] = totals[i] < 0 || s < 0 ? -1 : totals[i] + s;
      });
    }
    return totals;
  }

  // ------------------------------------------------------------ the browser

  const URL_DELAY_MS = 150; // after a filter change
  const TYPING_DELAY_MS = 400; // after the last key of a search

  class Browse {
    constructor(root) {
      this.root = root;
      this.path = location.pathname;
      this.form = root.querySelector(".rcp-filters");
      this.search = this.form.querySelector('input[name="search"]');
      this.sort = this.form.querySelector("select[data-sort]");
      this.selects = Array.from(this.form.querySelectorAll("select[data-filter]"));
      this.keys = this.selects.map((select) => select.name);
      this.options = this.selects.map((select) =>
        Array.from(select.options).map((option) => ({
          option,
          label: option.dataset.label || option.textContent,
          count: -1,
        })),
      );
      this.groups = Array.from(root.querySelectorAll(".rcp-group")).map((el) => ({
        el,
        count: el.querySelector("[data-rcp-group-count]"),
        shown: -1,
      }));
      this.cards = [];
      this.groups.forEach((group, index) => {
        for (const el of group.el.querySelectorAll(".rcp-card")) this.addCard(el, index);
      });
      for (const el of root.querySelectorAll(".rcp-card")) {
        if (!el.rcpCard) this.addCard(el, -1); // outside any group
      }
      this.query = null; // the search the scores are for
      this.scores = [];
      this.orderEl = root.querySelector("[data-rcp-order]");
      this.countEl = root.querySelector("[data-rcp-count]");
      this.empty = root.querySelector(".rcp-empty");
      this.notice = root.querySelector("[data-rcp-notice]");
      this.toggle = this.form.querySelector(".rcp-filters-toggle");
      this.active = this.form.querySelector("[data-rcp-active]");
      this.typing = false; // the current history entry is the search being typed
      this.pending = 0; // timer of the URL write to come
      this.pendingMode = "replace";
    }

    addCard(el, group) {
      let facets = {};
      try {
        facets = JSON.parse(el.dataset.facets || "{}");
      } catch (error) {
        facets = {};
      }
      const places = {};
      for (const option of this.sort ? this.sort.options : []) {
        places[option.value] = Number(el.style.getPropertyValue(`--rcp-o-${option.value}`)) || 0;
      }
      const card = {
        el,
        group,
        names: split(el.dataset.names),
        tags: split(el.dataset.tags),
        places,
        rank: "", // its order while a search is typed
        values: this.keys.map((key) => facets[key] || []),
        shown: !el.hidden,
      };
      el.rcpCard = card;
      this.cards.push(card);
    }

    // ------------------------------------------------------------ filtering

    apply() {
      const chosen = this.selects.map((select) => select.value);
      const query = this.search.value.trim();
      if (query !== this.query) {
        this.scores = scores(query, this.cards);
        this.query = query;
      }
      const sort = this.sort ? this.sort.value : "";
      const nKeys = this.keys.length;
      // counts[k]: value -> models it would show with the other filters; any[k]: with none of k.
      const counts = this.keys.map(() => new Map());
      const any = new Array(nKeys).fill(0);
      const groupShown = new Array(this.groups.length).fill(0);
      let shown = 0;
      this.cards.forEach((card, index) => {
        const score = this.scores[index];
        let visible = score >= 0;
        if (visible) {
          let misses = 0;
          let missed = -1;
          for (let k = 0; k < nKeys && misses < 2; k++) {
            if (chosen[k] && !card.values[k].includes(chosen[k])) {
              misses += 1;
              missed = k;
            }
          }
          visible = misses === 0;
          if (misses <= 1) {
            for (let k = 0; k < nKeys; k++) {
              if (misses === 1 && k !== missed) continue;
              any[k] += 1;
              const map = counts[k];
              for (const value of card.values[k]) map.set(value, (map.get(value) || 0) + 1);
            }
          }
        }
        if (visible !== card.shown) {
          card.el.hidden = !visible;
          card.shown = visible;
        }
        if (visible) {
          shown += 1;
          if (card.group >= 0) groupShown[card.group] += 1;
          // Best match first, ties in the chosen order; without a search, the stylesheet's
          // order (the sort's). `order` itself: a custom property would restyle the whole card.
          const rank = query ? String(score * this.cards.length + (card.places[sort] || 0)) : "";
          if (rank !== card.rank) {
            card.el.style.order = rank;
            card.rank = rank;
          }
        }
      });
      this.groups.forEach((group, index) => {
        const n = groupShown[index];
        if (n === group.shown) return;
        group.el.hidden = n === 0;
        if (n) {
          group.el.dataset.span = String(Math.min(n, 3)); // columns it takes (browse.css)
          group.el.style.setProperty("--n", String(n)); // its height until laid out
        }
        if (group.count) group.count.textContent = String(n);
        group.shown = n;
      });
      this.options.forEach((options, k) => {
        for (const entry of options) {
          const value = entry.option.value;
          const n = value ? counts[k].get(value) || 0 : any[k];
          if (n === entry.count) continue;
          entry.option.textContent = `${entry.label} (${n})`;
          entry.option.disabled = n === 0 && value !== chosen[k];
          entry.count = n;
        }
      });
      if (this.countEl) this.countEl.textContent = String(shown);
      if (this.empty) this.empty.hidden = shown !== 0;
      // Written only when they change: each write restyles what depends on it.
      // The order itself is each card's rank, worked out at build time (browse.py, SORTS);
      // a search orders the cards best match first (within each provider when grouped).
      const option = this.sort ? this.sort.selectedOptions[0] : null;
      const group = (option && option.dataset.group) || "none";
      if (this.root.dataset.group !== group) this.root.dataset.group = group;
      if (this.root.dataset.sort !== sort) this.root.dataset.sort = sort;
      if (this.orderEl) {
        const note = query ? this.orderEl.dataset.noteSearching : option && option.dataset.note;
        if (note && this.orderEl.textContent !== note) this.orderEl.textContent = note;
      }
      const active = chosen.filter(Boolean).length;
      const activeText = active ? `(${active})` : "";
      if (this.active && this.active.textContent !== activeText) {
        this.active.textContent = activeText;
      }
    }

    // ------------------------------------------------------------ URL

    // Reads the filters from the URL; values no option has are dropped with a notice.
    readURL() {
      const params = new URLSearchParams(location.search);
      const dropped = []; // [key, value as given]
      let rewrite = false;
      this.search.value = params.get("search") || "";
      for (const select of this.selects) {
        const value = params.get(select.name) || "";
        const known = value && Array.from(select.options).some((o) => o.value === value);
        if (value && !known) dropped.push([select.name, value]);
        select.value = known ? value : "";
      }
      if (this.sort) {
        // `group=none` is the older URL form of an ungrouped list: sorted by name.
        const legacy = params.get("group");
        if (legacy !== null && legacy !== "none" && legacy !== "provider") {
          dropped.push(["group", legacy]);
        }
        const value = params.get("sort") || (legacy === "none" ? "name" : "");
        const known = value && Array.from(this.sort.options).some((o) => o.value === value);
        if (value && !known) dropped.push(["sort", value]);
        this.sort.value = known ? value : this.sort.options[0].value;
        if (legacy !== null) rewrite = true; // written back as sort=
      }
      this.showNotice(dropped);
      if (dropped.length || rewrite) this.writeURL("replace");
    }

    // A URL value is repeated as Python's notices repeat it: escaped and cut by
    // printable.js, the build's copy of builder.text_safety.printable (fetched only then).
    showNotice(dropped) {
      if (!this.notice || (this.notice.hidden && dropped.length === 0)) return;
      const seq = (this.noticeSeq = (this.noticeSeq || 0) + 1);
      if (dropped.length === 0) {
        this.notice.hidden = true;
        this.notice.textContent = "";
        return;
      }
      import("./printable.js").then(({ shown, QUOTE_MAX }) => {
        if (seq !== this.noticeSeq) return;
        const limit = Number(this.notice.dataset.quoteMax) || QUOTE_MAX;
        const items = dropped.map(([key, value]) => `${key}=${shown(value, limit)}`);
        this.notice.hidden = false;
        this.notice.textContent =
          `Ignored from the URL, showing all models for ${items.length > 1 ? "these" : "it"}` +
          ` instead: ${items.join(", ")} (no such filter value)`;
      }, (error) => console.error("home page: printable.js did not load:", error));
    }

    url() {
      const params = new URLSearchParams(location.search);
      const set = (name, value) => (value ? params.set(name, value) : params.delete(name));
      set("search", this.search.value.trim() ? this.search.value : "");
      for (const select of this.selects) set(select.name, select.value);
      if (this.sort) {
        params.delete("group");
        set("sort", this.sort.selectedIndex > 0 ? this.sort.value : "");
      }
      const query = params.toString();
      return location.pathname + (query ? "?" + query : "") + location.hash;
    }

    writeURL(mode) {
      const url = this.url();
      if (url === location.pathname + location.search + location.hash) return;
      if (mode === "push") history.pushState(null, "", url);
      else history.replaceState(history.state, "", url);
    }

    // A new entry ("push") stays one when later changes join it before it is written.
    queueURL(mode, delay) {
      this.pendingMode = this.pending && this.pendingMode === "push" ? "push" : mode;
      clearTimeout(this.pending);
      this.pending = setTimeout(() => this.flushURL(), delay);
    }

    flushURL() {
      if (!this.pending) return;
      clearTimeout(this.pending);
      this.pending = 0;
      this.writeURL(this.pendingMode);
    }

    // ------------------------------------------------------------ wiring

    wire() {
      this.readURL();
      this.apply();
      this.root.classList.add("rcp-js");
      this.form.addEventListener("input", (event) => {
        if (event.target !== this.search) return; // selects report through "change"
        this.apply();
        // One history entry per search typed, not per key.
        this.queueURL(this.typing ? "replace" : "push", TYPING_DELAY_MS);
        this.typing = true;
        this.showNotice([]);
      });
      this.search.addEventListener("blur", () => {
        this.typing = false;
      });
      const changed = () => {
        this.typing = false;
        this.apply();
        this.queueURL("push", URL_DELAY_MS);
        this.showNotice([]);
      };
      this.form.addEventListener("change", (event) => {
        if (event.target !== this.search) changed();
      });
      this.form.addEventListener("reset", () => setTimeout(changed, 0));
      // Leaving: the URL must hold the filters first (back comes to them).
      this.root.addEventListener("click", () => this.flushURL(), true);
      window.addEventListener("pagehide", () => this.flushURL());
      this.form.addEventListener("submit", (event) => event.preventDefault());
      const clear = this.root.querySelector("[data-rcp-clear]");
      if (clear) clear.addEventListener("click", () => this.search.focus()); // it resets the form
      if (this.toggle) {
        this.toggle.addEventListener("click", () => {
          const open = this.toggle.getAttribute("aria-expanded") !== "true";
          this.toggle.setAttribute("aria-expanded", String(open));
          this.root.classList.toggle("rcp-open", open);
        });
      }
    }

    // Back/forward: the URL changed under the page.
    popped() {
      if (location.pathname !== this.path || !this.root.isConnected) return;
      clearTimeout(this.pending);
      this.pending = 0;
      this.typing = false;
      this.readURL();
      this.apply();
    }
  }

  let current = null;

  window.addEventListener("popstate", () => {
    if (current) current.popped();
  });

  // The theme's search keys (f, s, /) go to this page's one search box: the header's search
  // is hidden here (browse.css). Before the theme's own handler, which listens on window.
  document.addEventListener("keydown", (event) => {
    if (!current || !current.root.isConnected || event.metaKey || event.ctrlKey ||
        event.altKey || !["f", "s", "/"].includes(event.key)) return;
    const target = event.target;
    if (target instanceof HTMLElement &&
        (target.isContentEditable || /^(INPUT|SELECT|TEXTAREA)$/.test(target.tagName))) return;
    event.preventDefault();
    event.stopPropagation();
    current.search.focus();
    current.search.select();
  }, true);

  mount("[data-rcp-browse]", "rcpBrowse", (root) => {
    current = new Browse(root);
    current.wire();
    return current;
  });
})();
