// Home page filters: show the model cards that match, keep the filters in the query string.
// The cards and their facets are in the static HTML (made by the recipes plugin); this only
// hides and shows them. Wired through mkdocs-material's document$ so instant navigation
// back to the home page works.

(function () {
  "use strict";

  function facetsOf(card) {
    if (!card._rcpFacets) {
      try {
        card._rcpFacets = JSON.parse(card.dataset.facets || "{}");
      } catch (error) {
        card._rcpFacets = {};
      }
    }
    return card._rcpFacets;
  }

  function matches(card, filters, words) {
    const facets = facetsOf(card);
    for (const [key, value] of Object.entries(filters)) {
      if (value && !(facets[key] || []).includes(value)) return false;
    }
    const text = card.dataset.text || "";
    return words.every((word) => text.includes(word));
  }

  function readURL(form) {
    const params = new URLSearchParams(location.search);
    for (const control of form.querySelectorAll("[data-filter]")) {
      const value = params.get(control.name) || "";
      if (control.tagName === "SELECT") {
        const known = Array.from(control.options).some((option) => option.value === value);
        control.value = known ? value : "";
      } else {
        control.value = value;
      }
    }
  }

  function writeURL(form) {
    const params = new URLSearchParams(location.search);
    for (const control of form.querySelectorAll("[data-filter]")) {
      if (control.value) params.set(control.name, control.value);
      else params.delete(control.name);
    }
    const query = params.toString();
    const url = location.pathname + (query ? "?" + query : "") + location.hash;
    if (url !== location.pathname + location.search + location.hash) {
      history.replaceState(history.state, "", url);
    }
  }

  function apply(root) {
    const form = root.querySelector(".rcp-filters");
    const filters = {};
    let words = [];
    for (const control of form.querySelectorAll("[data-filter]")) {
      if (control.name === "search") {
        words = control.value.toLowerCase().split(/\s+/).filter(Boolean);
      } else {
        filters[control.name] = control.value;
      }
    }
    let shown = 0;
    for (const card of root.querySelectorAll(".rcp-card")) {
      const visible = matches(card, filters, words);
      card.hidden = !visible;
      if (visible) shown += 1;
    }
    const count = root.querySelector("[data-rcp-count]");
    if (count) count.textContent = String(shown);
    const empty = root.querySelector(".rcp-empty");
    if (empty) empty.hidden = shown !== 0;
  }

  function wire(root) {
    if (root.dataset.rcpWired) return;
    root.dataset.rcpWired = "1";
    const form = root.querySelector(".rcp-filters");
    if (!form) return;
    readURL(form);
    apply(root);
    const update = () => {
      apply(root);
      writeURL(form);
    };
    form.addEventListener("input", update);
    form.addEventListener("change", update);
    form.addEventListener("reset", () => setTimeout(update, 0));
    form.addEventListener("submit", (event) => event.preventDefault());
    const clear = root.querySelector("[data-rcp-clear]");
    if (clear) {
      clear.addEventListener("click", (event) => {
        event.preventDefault();
        form.reset();
      });
    }
  }

  function wireAll() {
    for (const root of document.querySelectorAll("[data-rcp-browse]")) wire(root);
  }

  if (typeof document$ !== "undefined" && document$.subscribe) {
    document$.subscribe(wireAll);
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", wireAll);
  } else {
    wireAll();
  }
})();
