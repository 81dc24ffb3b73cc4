// The serving-configurations catalogue (/configurations/): filters that show and hide the cards
// and featured picks, kept in the query string so a reload or a shared link keeps them, and
// the commands' copy buttons. Cards, their facets and every command are in the static HTML
// (site_plugins/recipes/configurations.py); this only hides, shows and copies. An ES
// module: the catalogue page's own (mkdocs.yml extra.page_assets), run once per tab.

import { mount } from "./site.js";

(function () {
  "use strict";

  const DATE = /^\d{4}-\d{2}-\d{2}$/;

  function controls(form) {
    return Array.from(form.querySelectorAll("[data-filter]"));
  }

  function readURL(form) {
    const params = new URLSearchParams(location.search);
    for (const control of controls(form)) {
      const value = params.get(control.name) || "";
      if (control.tagName === "SELECT") {
        const known = Array.from(control.options).some((option) => option.value === value);
        control.value = known ? value : "";
      } else {
        control.value = DATE.test(value) ? value : "";
      }
    }
  }

  function writeURL(form) {
    const params = new URLSearchParams(location.search);
    for (const control of controls(form)) {
      if (control.value) params.set(control.name, control.value);
      else params.delete(control.name);
    }
    const query = params.toString();
    const url = location.pathname + (query ? "?" + query : "") + location.hash;
    if (url !== location.pathname + location.search + location.hash) {
      history.replaceState(history.state, "", url);
    }
  }

  function matches(item, filters) {
    const data = item.dataset;
    if (filters.hardware && data.hardware !== filters.hardware) return false;
    if (filters.precision && data.precision !== filters.precision) return false;
    if (filters.framework && data.framework !== filters.framework) return false;
    if (filters.from && data.date < filters.from) return false;
    if (filters.to && data.date > filters.to) return false;
    return true;
  }

  function apply(root) {
    const form = root.querySelector(".cfg-filters");
    const filters = {};
    for (const control of controls(form)) filters[control.name] = control.value;
    let shown = 0;
    for (const item of document.querySelectorAll("[data-cfg-item]")) {
      const visible = matches(item, filters);
      item.hidden = !visible;
      if (visible && item.classList.contains("cfg-card")) shown += 1;
    }
    for (const group of document.querySelectorAll(".cfg-featured-system, .cfg-featured")) {
      group.hidden = !group.querySelector("[data-cfg-item]:not([hidden])");
    }
    root.querySelector("[data-cfg-shown]").textContent = String(shown);
    root.querySelector(".cfg-empty").hidden = shown > 0;
  }

  async function copy(button) {
    const code = button.closest(".cfg-block")?.querySelector("pre code");
    if (!code) return;
    let ok = true;
    try {
      await navigator.clipboard.writeText(code.textContent);
    } catch (error) {
      ok = false;
    }
    button.textContent = ok ? "Copied" : "Copy failed";
    clearTimeout(button.cfgTimer);
    button.cfgTimer = setTimeout(() => {
      button.textContent = "Copy";
    }, 1500);
  }

  function wire(root) {
    const form = root.querySelector(".cfg-filters");
    readURL(form);
    apply(root);
    form.addEventListener("input", () => {
      writeURL(form);
      apply(root);
    });
    form.addEventListener("change", () => {
      writeURL(form);
      apply(root);
    });
    form.addEventListener("reset", () => {
      setTimeout(() => {
        writeURL(form);
        apply(root);
      });
    });
    form.addEventListener("submit", (event) => event.preventDefault());
    root.querySelector("[data-cfg-clear]").addEventListener("click", (event) => {
      event.preventDefault();
      form.reset();
    });
  }

  document.addEventListener("click", (event) => {
    const button = event.target.closest?.("button.cfg-copy");
    if (button) copy(button);
  });

  mount("[data-cfg-catalogue]", "cfgCatalogue", (root) => {
    wire(root);
    return true;
  });
})();
