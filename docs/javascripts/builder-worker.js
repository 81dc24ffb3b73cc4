// The recipe builder's Python, off the main thread: a module Web Worker that boots Pyodide
// once per tab, copies the site's builder/*.py into Pyodide's file system, and answers
// page_state(query) with the HTML Python renders. No command logic lives here: the worker
// only moves text between the page and builder.view.page_state.
//
// Messages in:  {type: "init", pyodideURL, builderURL}
//               {type: "prepare", catalogURL, recipeURL}
//               {type: "page_state", id, catalogURL, recipeURL, query}
//               {type: "compare", id, catalogURL, recipeURL, query, text}
//               {type: "dynamo_state", id, dataURL, query}   (builder.dynamo_view.page_state)
// Messages out: {type: "ready", ms} | {type: "failed", error}
//               {type: "result", id, html, explicit, notice, ms} | {type: "error", id, error}
//               (for "compare": {type: "result", id, html, error, explicit, summary, ms}, from
//               builder.compare.compare_state)

// The Python half of the bridge: JSON text in, JSON text out. The recipe JSON the site
// publishes carries page-only keys (hf_id, recommended_command, guide, ...); the adapter
// hands the builder the data keys it knows and nothing else.
const BRIDGE = `
import json
from builder.view import page_state

_PAGE_ONLY = {"hf_id", "recommended_command", "guide", "widget_html"}
_data = {}


def load(url, text, recipe):
    data = json.loads(text)
    if recipe:
        data = {k: v for k, v in data.items() if k not in _PAGE_ONLY}
    _data[url] = data


def loaded(url):
    return url in _data


def call(catalog_url, recipe_url, query_json):
    state = page_state(_data[catalog_url], _data[recipe_url], json.loads(query_json))
    return json.dumps({
        "html": state["html"],
        "explicit": state["explicit"],
        "notice": state["notice"],
    })


def compare(catalog_url, recipe_url, query_json, text):
    from builder.compare import compare_state
    return json.dumps(
        compare_state(_data[catalog_url], _data[recipe_url], json.loads(query_json), text))
def load_deployments(url, text):
    # /<hf_id>/deployments.json: the builder's input is its "data".
    _data[url] = json.loads(text)["data"]


def dynamo_call(url, query_json):
    from builder.dynamo_view import page_state as dynamo_state

    state = dynamo_state(_data[url], json.loads(query_json))
    return json.dumps({
        "html": state["html"],
        "explicit": state["explicit"],
        "notice": state["notice"],
    })
`;

const BUILDER_ROOT = "/rb";

let booting = null; // Promise<bridge>, one per worker, so one per tab
const texts = new Map(); // url -> Promise<string>, so a JSON file is fetched once

async function fetchText(url) {
  const response = await fetch(url, { credentials: "same-origin" });
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return response.text();
}

function text(url) {
  if (!texts.has(url)) {
    const pending = fetchText(url);
    pending.catch(() => texts.delete(url));
    texts.set(url, pending);
  }
  return texts.get(url);
}

function manifestFiles(manifest) {
  // The site lists the builder's files as a list, or as {files: [...]}.
  const files = Array.isArray(manifest) ? manifest : manifest.files;
  if (!Array.isArray(files)) throw new Error("builder manifest: no file list");
  return files;
}

async function boot({ pyodideURL, builderURL }) {
  const started = performance.now();
  // Fetch the builder's sources while the interpreter downloads and starts.
  const sources = fetchText(new URL("manifest.json", builderURL)).then(async (raw) => {
    const files = manifestFiles(JSON.parse(raw));
    return Promise.all(
      files.map(async (path) => [path, await fetchText(new URL(path, builderURL))]),
    );
  });
  const { loadPyodide } = await import(new URL("pyodide.mjs", pyodideURL).href);
  const pyodide = await loadPyodide({ indexURL: pyodideURL, packages: [] });
  for (const [path, source] of await sources) {
    const target = `${BUILDER_ROOT}/${path.replace(/^\/+/, "")}`;
    pyodide.FS.mkdirTree(target.slice(0, target.lastIndexOf("/")));
    pyodide.FS.writeFile(target, source);
  }
  pyodide.FS.writeFile(`${BUILDER_ROOT}/_rb_bridge.py`, BRIDGE);
  pyodide.runPython(`import sys; sys.path.insert(0, ${JSON.stringify(BUILDER_ROOT)})`);
  const module = pyodide.pyimport("_rb_bridge");
  // Each attribute access makes a new proxy: take the three functions once, for the tab.
  const bridge = {
    load: module.load,
    loaded: module.loaded,
    call: module.call,
    compare: module.compare,
    loadDeployments: module.load_deployments,
    dynamoCall: module.dynamo_call,
  };
  return { pyodide, bridge, started };
}

async function ensureData(bridge, url, recipe) {
  if (bridge.loaded(url)) return;
  const raw = await text(url);
  if (!bridge.loaded(url)) bridge.load(url, raw, recipe);
}

async function pageState({ catalogURL, recipeURL, query }) {
  const { bridge } = await booting;
  await Promise.all([ensureData(bridge, catalogURL, false), ensureData(bridge, recipeURL, true)]);
  return JSON.parse(bridge.call(catalogURL, recipeURL, JSON.stringify(query || {})));
}

async function dynamoState({ dataURL, query }) {
  const { bridge } = await booting;
  if (!bridge.loaded(dataURL)) {
    const raw = await text(dataURL);
    if (!bridge.loaded(dataURL)) bridge.loadDeployments(dataURL, raw);
  }
  return JSON.parse(bridge.dynamoCall(dataURL, JSON.stringify(query || {})));
}

self.onmessage = async ({ data }) => {
  switch (data.type) {
    case "init": {
      if (booting) return;
      booting = boot(data);
      booting.catch((error) => self.postMessage({ type: "failed", error: String(error) }));
      return;
    }
    case "prepare": {
      // Load this page's data and run the builder once, so the first click is fast.
      try {
        const { started } = await booting;
        await pageState({ ...data, query: {} });
        self.postMessage({ type: "ready", ms: performance.now() - started });
      } catch (error) {
        self.postMessage({ type: "failed", error: String(error) });
      }
      return;
    }
    case "page_state": {
      const started = performance.now();
      try {
        const state = await pageState(data);
        self.postMessage({ type: "result", id: data.id, ...state, ms: performance.now() - started });
      } catch (error) {
        self.postMessage({ type: "error", id: data.id, error: String(error) });
      }
      return;
    }
    case "compare": {
      const started = performance.now();
      try {
        const { bridge } = await booting;
        await Promise.all([
          ensureData(bridge, data.catalogURL, false),
          ensureData(bridge, data.recipeURL, true),
        ]);
        const state = JSON.parse(
          bridge.compare(data.catalogURL, data.recipeURL, JSON.stringify(data.query || {}),
            String(data.text ?? "")),
        );
        self.postMessage({ type: "result", id: data.id, ...state, ms: performance.now() - started });
      } catch (error) {
        self.postMessage({ type: "error", id: data.id, error: String(error) });
      }
      return;
    }
    case "dynamo_state": {
      const started = performance.now();
      try {
        const state = await dynamoState(data);
        self.postMessage({ type: "result", id: data.id, ...state, ms: performance.now() - started });
      } catch (error) {
        self.postMessage({ type: "error", id: data.id, error: String(error) });
      }
      return;
    }
    default:
      self.postMessage({ type: "error", id: data.id, error: `unknown message ${data.type}` });
  }
};
