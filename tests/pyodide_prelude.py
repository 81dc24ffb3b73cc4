"""The start of every Node script that runs the builder under Pyodide in the tests: Pyodide
loaded, and builder/ with its sub-packages written into its file system as the page's worker
lays them out. The script's arguments are the builder's folder and an input file."""

PYODIDE_PRELUDE = r"""
import { loadPyodide } from "pyodide";
import { readFileSync, readdirSync } from "node:fs";
import { sep } from "node:path";

const [builderDir, inputPath] = process.argv.slice(2);
const pyodide = await loadPyodide();
// The builder and its sub-packages, laid out as the page's worker lays them out.
for (const name of readdirSync(builderDir, { recursive: true })) {
  if (!name.endsWith(".py") || name.includes("__pycache__")) continue;
  const target = `/rb/builder/${name.split(sep).join("/")}`;
  pyodide.FS.mkdirTree(target.slice(0, target.lastIndexOf("/")));
  pyodide.FS.writeFile(target, readFileSync(`${builderDir}/${name}`, "utf8"));
}
"""
