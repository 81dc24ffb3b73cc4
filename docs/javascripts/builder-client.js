// The builder's worker, from the page's side (an ES module, run once per tab): starts the
// worker (builder-worker.js: Pyodide and the builder's Python, shared by the site's tabs where
// the browser can), sends it one call at a time and tells listeners when Python is ready or
// has failed. Every widget that asks Python (the recipe builder, the compare box, the Dynamo
// widget) goes through here, so a tab runs one Pyodide.

const SITE = new URL("../", import.meta.url);
const PYODIDE_URL = new URL("assets/pyodide/", SITE).href;
const BUILDER_URL = new URL("assets/builder/", SITE).href;
const IDLE_TIMEOUT_MS = 3000; // Python starts by then even if the browser is never idle

// The worker's state: `ready`, `failed` (why), `listeners` (called with no argument when
// Python is ready or has failed), `worker` (its port, once started).
export const python = {
  worker: null,
  phases: null,
  ready: false,
  failed: null,
  calls: new Map(), // id -> {resolve, reject}
  nextId: 1,
  listeners: new Set(), // called with no argument when Python is ready or has failed
};

function fail(error) {
  if (python.failed || python.ready) return;
  python.failed = error;
  console.error("recipe builder: Python failed to start:", error);
  for (const { reject } of python.calls.values()) reject(new Error(error));
  python.calls.clear();
  notify();
}

function startPython() {
  if (python.worker || python.failed) return python.worker;
  if (typeof WebAssembly !== "object") {
    fail("this browser has no WebAssembly (or it is turned off), which Python needs");
    return null;
  }
  try {
    python.worker = openWorker();
  } catch (error) {
    fail(`this browser cannot start the builder's worker (${error.message})`);
    return null;
  }
  python.worker.onmessage = ({ data }) => {
    if (data.type === "ready") python.phases = data.phases; // read by benchmarks and tests
    if (data.type === "ready" || data.type === "result") markReady();
    if (data.type === "failed") {
      fail(data.error);
      return;
    }
    const call = python.calls.get(data.id);
    if (!call) return;
    python.calls.delete(data.id);
    if (data.type === "result") call.resolve(data);
    else call.reject(new Error(data.error));
  };
  python.worker.rbWorker.onerror = (event) => {
    event.preventDefault?.();
    fail(`${event.message || "the worker script did not load"} (javascripts/builder-worker.js)`);
  };
  performance.mark("rb-python-start");
  python.worker.postMessage({ type: "init", pyodideURL: PYODIDE_URL, builderURL: BUILDER_URL });
  return python.worker;
}

// The worker's port (a shared worker's, or a dedicated worker itself), with the worker as
// `rbWorker`.
function openWorker() {
  const url = new URL("builder-worker.js", import.meta.url);
  const version = document.querySelector('meta[name="rb-worker"]')?.content;
  const options = { type: "module", name: version || "recipe-builder" };
  let worker = null;
  try {
    if (typeof SharedWorker === "function") worker = new SharedWorker(url, options);
  } catch {
    worker = null;
  }
  worker = worker || new Worker(url, options);
  const port = worker.port || worker;
  port.rbWorker = worker;
  return port;
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

// Python (about 3 MB of WebAssembly and a boot snapshot) is fetched after the page has
// loaded, once the browser is idle: the page's first paint and first clicks (answered from
// what the build prerendered) do not share the network or the CPU with it.
let idleStart = null;
export function startPythonWhenIdle(then) {
  if (python.worker || python.failed) {
    then();
    return;
  }
  const callbacks = idleStart ?? (idleStart = []);
  callbacks.push(then);
  if (callbacks.length > 1) return;
  const start = () => {
    idleStart = null;
    startPython();
    for (const callback of callbacks) callback();
  };
  const whenIdle = () => {
    if (typeof requestIdleCallback === "function") {
      requestIdleCallback(start, { timeout: IDLE_TIMEOUT_MS });
    } else {
      setTimeout(start, 0);
    }
  };
  if (document.readyState === "complete") whenIdle();
  else window.addEventListener("load", whenIdle, { once: true });
}

// One call to the worker's Python; other widgets of the page (dynamo.js, compare.js) use it
// too, so a tab runs one Pyodide.
export function askPython(type, payload) {
  if (python.failed) return Promise.reject(new Error(python.failed));
  const worker = startPython();
  if (!worker) return Promise.reject(new Error(python.failed));
  const id = python.nextId++;
  return new Promise((resolve, reject) => {
    python.calls.set(id, { resolve, reject });
    worker.postMessage({ type, id, ...payload });
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
