// Site-wide page glue (an ES module on every page, run once per tab). Each kind of page loads
// its own scripts besides this one (mkdocs.yml extra.page_assets, overrides/main.html); they
// wire themselves to pages with `onPage`.
//
// Here: examples that name the site's address get the one it is served from; links the theme
// makes to pages whose last segment has a dot get their index.html form; sideways-scrolling
// tables become keyboard stops; the theme's code-block navs get distinct names (axe).

const SITE = new URL("../", import.meta.url);

// Calls `wire` for the page now shown and after every instant navigation (mkdocs-material's
// document$, a replay subject). A page's own modules are in its content, before the theme's
// bundle (deferred, at the end of <body>): they run before document$ exists on a full load,
// so they subscribe once the document is parsed and the bundle has run (DOMContentLoaded); a
// module that instant navigation brings in later finds document$ there already.
export function onPage(wire) {
  const subscribe = () => {
    if (typeof window.document$?.subscribe === "function") window.document$.subscribe(wire);
    else wire();
  };
  if (window.document$ || document.readyState === "complete") subscribe();
  else document.addEventListener("DOMContentLoaded", subscribe, { once: true });
}

// The one start-up wiring of the site's widgets: every element `selector` finds gets
// `make(element)` (a widget), kept on the element as `key` so it is made once per element, on
// the page now shown and after every instant navigation.
export function mount(selector, key, make) {
  onPage(() => {
    for (const element of document.querySelectorAll(selector)) {
      if (!element[key]) element[key] = make(element);
    }
  });
}

// Copies `text` to the clipboard; true when it worked.
export async function copyText(text) {
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

// Wide tables scroll sideways inside the theme's wrapper: let the keyboard reach them.
function focusableScrollers() {
  for (const wrap of document.querySelectorAll(".md-typeset__scrollwrap:not([tabindex])")) {
    wrap.tabIndex = 0;
  }
}

// The theme adds a <nav> of buttons to each code block, all unnamed: landmarks need
// distinct names (axe: landmark-unique).
function nameCodeNavs() {
  document.querySelectorAll(".md-code__nav:not([aria-label])").forEach((nav, index) => {
    nav.setAttribute("aria-label", `Code block ${index + 1} actions`);
  });
}

// Examples on hand-written pages name the site's address: the one it is served from, not the
// one it was built for (marked <div data-site-url>, the build-time default in quotes).
const BUILT_FOR = "http://127.0.0.1:8000/";
function fillSiteURL() {
  for (const block of document.querySelectorAll("[data-site-url] code")) {
    const walker = document.createTreeWalker(block, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.data.includes(BUILT_FOR)) node.data = node.data.replaceAll(BUILT_FOR, SITE.href);
    }
  }
}

// `npx serve` lists a directory whose name has a dot instead of serving its index.html: links
// to such pages that the theme makes (search results, navigation) get the index.html form
// the site's own links use (site_plugins/recipes/pages.py page_href).
function indexForm(event) {
  const link = event.target.closest?.("a.md-search-result__link[href], a.md-nav__link[href]");
  if (!link || link.origin !== location.origin) return;
  const url = new URL(link.href);
  const last = url.pathname.split("/").at(-2) ?? "";
  if (url.pathname.endsWith("/") && last.includes(".")) {
    url.pathname += "index.html";
    link.href = url.href;
  }
}
// mousedown comes before a middle click's new tab and a right click's menu; click covers keys.
document.addEventListener("mousedown", indexForm, { capture: true });
document.addEventListener("click", indexForm, { capture: true });

onPage(() => {
  fillSiteURL();
  focusableScrollers();
  nameCodeNavs();
});
