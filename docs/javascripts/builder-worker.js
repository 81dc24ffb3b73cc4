// The recipe builder's Python, off the main thread: a module worker that boots Pyodide once
// and answers page_state(query) with the HTML Python renders. No command logic lives here: the
// worker only moves text between the page and builder.views.widget.page_state.
//
// Shared: where the browser has shared workers, every tab of the site talks to one worker (its
// name carries the builder's version, so a redeployed site gets a new one), so a second tab
// finds Python running and only loads its recipe. Elsewhere each tab has its own worker.
//
// Boot: from the memory snapshot the site ships (assets/builder/snapshot-<hash>.bin, made at
// build time with every builder module imported), else the ordinary way (Python starts, the
// builder's sources are fetched and written into Pyodide's file system). A failed start is
// reported at once with what to fix: an HTTP error on one of Pyodide's files, a failed
// WebAssembly instantiation, no WebAssembly at all. A .wasm served with a wrong MIME type is
// accepted (compiled from a corrected response) rather than failing.
//
// Data: the recipe document (/<hf_id>.json) and the builder catalog, each fetched once per tab;
// every selection is computed here, so a click makes no network request.
//
// The protocol is a switch on `type`; add new message types as new cases.
// Messages in:  {type: "init", pyodideURL, builderURL, hold} | {type: "go"} (ends the hold)
//               {type: "prepare", catalogURL, recipeURL}
//               {type: "page_state", id, catalogURL, recipeURL, query: [[key, value], ...],
//                base: [[key, value], ...]}   (a variant page's own selection)
//               {type: "compare", id, catalogURL, recipeURL, query, base, text}
//               {type: "dynamo_state", id, dataURL, query}   (builder.views.dynamo.page_state)
// Messages out: {type: "ready", ms, snapshot, phases} | {type: "failed", error}
//               {type: "result", id, html, explicit, notice, foreign, ms}
//               {type: "error", id, error}
//               (for "compare": {type: "result", id, html, error, explicit, summary, ms}, from
//               builder.diff.compare.compare_state)

// The Python half of the bridge is builder/bridge.py (`PageBridge`): JSON text in, JSON text
// out. It drops the recipe document's page-only keys and keeps one Builder per recipe.
const BRIDGE_IMPORT = "from builder.bridge import PageBridge";

const BUILDER_ROOT = "/rb";
const FIX =
  "check that the site was deployed with its assets/ folder and that the server sends " +
  ".wasm files as application/wasm";

let booting = null; // Promise<{pyodide, bridge, started, snapshot}>, one per worker (tab)
let failBoot = null; // rejects `booting` from outside (a failed download seen by fetch)
const texts = new Map(); // url -> Promise<string>, so a JSON file is fetched once

async function fetchText(url) {
  const response = await fetch(url, { credentials: "same-origin" });
  if (!response.ok) throw new Error(`${new URL(url).pathname}: HTTP ${response.status}`);
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

// Pyodide fetches its files itself. Watch those fetches: an HTTP error fails the start at once
// (Pyodide would wait forever). The WebAssembly module is fetched and compiled from the start
// of the boot, alongside the JavaScript and the snapshot (Pyodide would only begin once both
// are in); a .wasm with another MIME type is compiled all the same.
const EARLY = "x-rb-early-wasm";

function asWasm(response) {
  const type = response.headers.get("content-type") || "";
  if (type.startsWith("application/wasm")) return response;
  console.warn(`recipe builder: ${response.url} came as "${type}", not application/wasm`);
  return new Response(response.body, {
    status: response.status,
    headers: { "content-type": "application/wasm" },
  });
}

function watchFetches(pyodideURL) {
  const original = self.fetch.bind(self);
  const wasmURL = new URL("pyodide.asm.wasm", pyodideURL).href;
  const failed = (url, status) =>
    failBoot?.(new Error(`${new URL(url).pathname}: HTTP ${status}; ${FIX}`));
  const compiled = (async () => {
    const response = await original(wasmURL, { credentials: "same-origin" });
    if (!response.ok) {
      failed(wasmURL, response.status);
      throw new Error(`HTTP ${response.status}`);
    }
    if (released.done) return WebAssembly.compileStreaming(asWasm(response));
    // Download now, compile once the page has loaded (see "go").
    const bytes = await response.arrayBuffer();
    await released;
    return WebAssembly.compile(bytes);
  })();
  compiled.then(() => phase("wasm compiled"), () => {});
  self.fetch = async (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    if (url === wasmURL) return new Response(null, { headers: { [EARLY]: "1" } });
    const response = await original(input, init);
    if (url.startsWith(pyodideURL) && !response.ok) {
      // Pyodide holds some of these promises unawaited for a while: fail the start from here
      // rather than rejecting them (an unhandled rejection).
      failed(url, response.status);
    }
    return response;
  };
  const instantiateStreaming = WebAssembly.instantiateStreaming.bind(WebAssembly);
  WebAssembly.instantiateStreaming = async (source, imports) => {
    const response = await source;
    if (!response.headers.get(EARLY)) return instantiateStreaming(response, imports);
    const module = await compiled;
    return { module, instance: await WebAssembly.instantiate(module, imports) };
  };
  // Pyodide reports a failed instantiation with console.warn and then never settles.
  const warn = console.warn.bind(console);
  console.warn = (...args) => {
    warn(...args);
    if (String(args[0]).includes("wasm instantiation failed")) {
      failBoot?.(new Error(`Pyodide's WebAssembly module did not instantiate; ${FIX}`));
    }
  };
}

function manifestFiles(manifest) {
  // The site lists the builder's files as a list, or as {files: [...]}.
  const files = Array.isArray(manifest) ? manifest : manifest.files;
  if (!Array.isArray(files)) throw new Error("builder manifest: no file list");
  return files;
}

async function loadSnapshot(builderURL, manifest) {
  const name = (await manifest).snapshot;
  if (!name) return null;
  try {
    const response = await fetch(new URL(name, builderURL), { credentials: "same-origin" });
    if (!response.ok) return null;
    return new Uint8Array(await response.arrayBuffer());
  } catch {
    return null;
  }
}

async function writeSources(pyodide, builderURL, manifest) {
  const files = manifestFiles(await manifest);
  const sources = await Promise.all(
    files.map(async (path) => [path, await fetchText(new URL(path, builderURL).href)]),
  );
  for (const [path, source] of sources) {
    const target = `${BUILDER_ROOT}/${path.replace(/^\/+/, "")}`;
    pyodide.FS.mkdirTree(target.slice(0, target.lastIndexOf("/")));
    pyodide.FS.writeFile(target, source);
  }
  pyodide.runPython(`import sys; sys.path.insert(0, ${JSON.stringify(BUILDER_ROOT)})`);
}

const phases = {}; // boot phase -> ms since the worker started, sent with "ready"
const phase = (name) => {
  phases[name] = Math.round(performance.now());
};

// A worker started with `hold` downloads at once but keeps the CPU for its page until told
// ({type: "go"}); on a 2-core machine, compiling 9.6 MB of WebAssembly beside the page's own
// first layout would make that layout a long task. (The model pages start their worker once
// they have loaded and the browser is idle, recipe-builder.js, without a hold.)
let release = () => {};
const released = new Promise((resolve) => {
  release = () => {
    released.done = true;
    resolve();
  };
});

async function boot({ pyodideURL, builderURL, hold = false }) {
  const started = performance.now();
  phase("init");
  if (!hold) release();
  if (typeof WebAssembly !== "object") {
    throw new Error("this browser has no WebAssembly (or it is turned off), which Python needs");
  }
  watchFetches(pyodideURL);
  const manifest = fetchText(new URL("manifest.json", builderURL).href).then(JSON.parse);
  manifest.catch(() => {});
  const snapshotBytes = loadSnapshot(builderURL, manifest);
  // The ES modules under .js names (assets.py): any host sends those as JavaScript. Loading
  // them runs nothing heavy, and not on the page's thread: no need to wait for "go".
  const [{ loadPyodide }, asm] = await Promise.all([
    import(new URL("pyodide.mjs.js", pyodideURL).href),
    import(new URL("pyodide.asm.mjs.js", pyodideURL).href),
  ]);
  const options = { indexURL: pyodideURL, packages: [], createPyodideModule: asm.default };
  phase("imported");
  await released;
  phase("released");
  let pyodide = null;
  let snapshot = false;
  const bytes = await snapshotBytes;
  phase("snapshot fetched");
  if (bytes) {
    try {
      pyodide = await loadPyodide({ ...options, _loadSnapshot: bytes });
      pyodide.runPython(BRIDGE_IMPORT);
      snapshot = true;
    } catch (error) {
      console.warn("recipe builder: the boot snapshot did not load; starting Python anew", error);
      pyodide = null;
    }
  }
  if (!pyodide) {
    pyodide = await loadPyodide(options);
    await writeSources(pyodide, builderURL, manifest);
  }
  phase("python started");
  const scope = pyodide.toPy({});
  pyodide.runPython(`${BRIDGE_IMPORT}\nbridge = PageBridge()`, { globals: scope });
  const python = scope.get("bridge");
  // Take the methods once, for the worker (each attribute access makes a new proxy).
  const bridge = {
    load: python.load,
    call: python.call,
    compare: python.compare,
    loadDeployments: python.load_deployments,
    dynamoCall: python.dynamo_call,
  };
  return { pyodide, bridge, started, snapshot };
}

function startBoot(data) {
  booting = new Promise((resolve, reject) => {
    failBoot = reject;
    boot(data).then(resolve, reject);
  });
  return booting;
}

const loaded = new Set(); // URLs whose data Python holds (asked here, not of Python, per click)

async function ensureData(bridge, url, recipe) {
  if (loaded.has(url)) return;
  const raw = await text(url);
  if (!loaded.has(url)) {
    bridge.load(url, raw, recipe);
    loaded.add(url);
  }
}

// Python's answers, kept: a query asked before is answered from here, and after each answer
// the worker asks Python, while the reader looks at it, what each available pill would show
// (one at a time, giving way to any new question), so the next click is usually answered at
// once. It starts LOOK_AHEAD_AFTER_MS after the answer, once no new question has come: while
// a reader clicks in quick succession, Python is free to answer each click at once. The most
// recently used ANSWERS_KEPT are kept.
const ANSWERS_KEPT = 256;
const LOOK_AHEAD_AFTER_MS = 150;
const answers = new Map(); // JSON [catalogURL, recipeURL, pairs, base] -> Python's JSON text
let asked = 0; // counts page_state questions: a look-ahead stops when another comes

// Python's answer (JSON text) to a query, and whether it was kept from before.
function answer(bridge, catalogURL, recipeURL, pairs, base) {
  const key = JSON.stringify([catalogURL, recipeURL, pairs, base]);
  let text = answers.get(key);
  const kept = text !== undefined;
  if (!kept) text = bridge.call(catalogURL, recipeURL, JSON.stringify(pairs), JSON.stringify(base));
  answers.delete(key);
  answers.set(key, text);
  if (answers.size > ANSWERS_KEPT) answers.delete(answers.keys().next().value);
  return [text, kept];
}

// The query a click on pill (key, value) sends from this state: the page's withChoice
// (recipe-builder.js) on the explicit choices Python honoured.
function clicked(explicit, key, value) {
  return [...Object.entries(explicit).filter(([k]) => k !== key), [key, value]];
}

async function lookAhead(bridge, catalogURL, recipeURL, base, state, question) {
  const { explicit, after } = state; // (the reply goes without `after`)
  await new Promise((resolve) => setTimeout(resolve, LOOK_AHEAD_AFTER_MS));
  for (const [key, value] of after) {
    await new Promise((resolve) => setTimeout(resolve, 0));
    if (question !== asked) return;
    const pairs = clicked(explicit, key, value);
    if (!answers.has(JSON.stringify([catalogURL, recipeURL, pairs, base]))) {
      answer(bridge, catalogURL, recipeURL, pairs, base);
    }
  }
}

// Python's answer to a page's query. A warm-up (`question` false: the page's "prepare") is not
// a question: it stops no look-ahead, and looks ahead itself only while its tab has asked
// nothing else (a page opened with a query asks for it before it prepares).
async function pageState({ catalogURL, recipeURL, query, base = [] }, warmUp = null) {
  const question = warmUp ? asked : ++asked;
  // The data downloads while Python starts.
  text(catalogURL).catch(() => {});
  text(recipeURL).catch(() => {});
  const { bridge } = await booting;
  await Promise.all([ensureData(bridge, catalogURL, false), ensureData(bridge, recipeURL, true)]);
  const [json, kept] = answer(bridge, catalogURL, recipeURL, query || [], base || []);
  const state = JSON.parse(json);
  if (!warmUp || warmUp()) lookAhead(bridge, catalogURL, recipeURL, base || [], state, question);
  delete state.after;
  state.kept = kept;
  return state;
}

async function dynamoState({ dataURL, query }) {
  const { bridge } = await booting;
  if (!loaded.has(dataURL)) {
    const raw = await text(dataURL);
    if (!loaded.has(dataURL)) {
      bridge.loadDeployments(dataURL, raw);
      loaded.add(dataURL);
    }
  }
  return JSON.parse(bridge.dynamoCall(dataURL, JSON.stringify(query || {})));
}

// One tab's port: `questions` counts the page_state questions it has asked.
async function handle(data, reply, tab) {
  switch (data.type) {
    case "go": {
      release();
      return;
    }
    case "init": {
      // Every tab of a shared worker says "init"; Python starts once, each tab hears if not.
      (booting || startBoot(data)).catch((error) =>
        reply({ type: "failed", error: error.message || String(error) }),
      );
      return;
    }
    case "prepare": {
      // Load this page's data and run the builder once, so the first click is fast.
      try {
        const { started, snapshot } = await booting;
        await pageState({ ...data, query: [] }, () => tab.questions === 0);
        phase("first answer");
        phases.timeOrigin = performance.timeOrigin;
        reply({ type: "ready", ms: performance.now() - started, snapshot, phases });
      } catch (error) {
        // A failed start is reported once, by "init"; this is a data error.
        if (!(await booting.then(() => false, () => true))) {
          reply({ type: "failed", error: error.message || String(error) });
        }
      }
      return;
    }
    case "page_state": {
      tab.questions += 1;
      const started = performance.now();
      try {
        const state = await pageState(data);
        reply({ type: "result", id: data.id, ...state, ms: performance.now() - started });
      } catch (error) {
        reply({ type: "error", id: data.id, error: error.message || String(error) });
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
          bridge.compare(data.catalogURL, data.recipeURL, JSON.stringify(data.query || []),
            String(data.text ?? ""), JSON.stringify(data.base || [])),
        );
        reply({ type: "result", id: data.id, ...state, ms: performance.now() - started });
      } catch (error) {
        reply({ type: "error", id: data.id, error: String(error) });
      }
      return;
    }
    case "dynamo_state": {
      const started = performance.now();
      try {
        const state = await dynamoState(data);
        reply({ type: "result", id: data.id, ...state, ms: performance.now() - started });
      } catch (error) {
        reply({ type: "error", id: data.id, error: String(error) });
      }
      return;
    }
    default:
      reply({ type: "error", id: data.id, error: `unknown message ${data.type}` });
  }
}

// A shared worker (one Python for every tab of the site) answers each tab on its own port; a
// dedicated one (browsers without shared workers) answers its page.
if (typeof SharedWorkerGlobalScope === "function" && self instanceof SharedWorkerGlobalScope) {
  self.onconnect = ({ ports: [port] }) => {
    const tab = { questions: 0 };
    port.onmessage = ({ data }) => handle(data, (message) => port.postMessage(message), tab);
  };
} else {
  const tab = { questions: 0 };
  self.onmessage = ({ data }) => handle(data, (message) => self.postMessage(message), tab);
}
