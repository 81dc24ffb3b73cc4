// Makes the memory snapshot the page's worker boots Pyodide from (see assets.py).
//
//   node pyodide_snapshot.mjs PYODIDE_DIR BUILDER_DIR OUT
//
// Boots the npm `pyodide` runtime the site ships, imports every builder module (and the
// standard-library modules they use), and writes Pyodide's memory snapshot to OUT. In the
// browser, `loadPyodide({_loadSnapshot})` then skips Python's start-up and the imports: about
// 1 s instead of 4 s on a small machine. The snapshot holds only the interpreter's memory, no
// file system and no data: the worker still loads the recipe JSON itself.
import { readdirSync, readFileSync, writeFileSync, renameSync } from "node:fs";
import { join, resolve, sep } from "node:path";
import { pathToFileURL } from "node:url";

const [pyodideDir, builderDir, out] = process.argv.slice(2);
const { loadPyodide } = await import(pathToFileURL(join(resolve(pyodideDir), "pyodide.mjs")));
const pyodide = await loadPyodide({ _makeSnapshot: true, packages: [] });
// Every module of the builder and its sub-packages, as the page's worker writes them.
const modules = readdirSync(builderDir, { recursive: true })
  .filter((name) => name.endsWith(".py") && !name.includes("__pycache__"))
  .map((name) => name.split(sep).join("/"))
  .sort();
for (const name of modules) {
  const target = `/rb/builder/${name}`;
  pyodide.FS.mkdirTree(target.slice(0, target.lastIndexOf("/")));
  pyodide.FS.writeFile(target, readFileSync(join(builderDir, name), "utf8"));
}
const names = modules
  .map((name) => name.slice(0, -3).replace(/\/__init__$|^__init__$/, "").split("/").join("."))
  .filter((name) => name !== "");
pyodide.runPython(`
import gc, importlib, json, sys
sys.path.insert(0, "/rb")
import builder
for name in ${JSON.stringify(names)}:
    importlib.import_module("builder." + name)
gc.collect()
`);
const snapshot = pyodide.makeMemorySnapshot();
writeFileSync(`${out}.tmp`, snapshot);
renameSync(`${out}.tmp`, out);
