"""`javascripts/printable.js`: the home page's copy of `builder.text_safety.printable`, made
by the build from Python's own rule, so that the page's notice and every Python notice show
the same text for the same outside value.

The module's `shown(text, limit)` escapes each code point Python's `str.isprintable` rejects
(the ranges `unprintable_ranges` lists, written into the module) as `repr` writes it (`\\t`,
`\\n`, `\\r`, `\\xNN`, `\\uNNNN`, `\\UNNNNNNNN`), then cuts the result to `limit` code points,
the last one an ellipsis: what `builder.errors.shown` gives. The page imports it only when it
has a value to repeat. A test runs it under Node against the Python function.
"""

from __future__ import annotations

import json

from builder.errors import QUOTE_MAX
from builder.text_safety import unprintable_ranges

__all__ = ["URI", "printable_module"]

URI = "javascripts/printable.js"
"""Where the site publishes the module (beside browse.js, which imports it)."""

_FUNCTIONS = """
const SPECIAL = { 9: "\\\\t", 10: "\\\\n", 13: "\\\\r" };

function unprintable(code) {
  let low = 0, high = RANGES.length - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    if (code < RANGES[mid][0]) high = mid - 1;
    else if (code > RANGES[mid][1]) low = mid + 1;
    else return true;
  }
  return false;
}

function escaped(code) {
  if (SPECIAL[code]) return SPECIAL[code];
  const [prefix, width] = code < 0x100 ? ["\\\\x", 2]
    : code < 0x10000 ? ["\\\\u", 4] : ["\\\\U", 8];
  return prefix + code.toString(16).padStart(width, "0");
}

// `text` as a notice repeats it (builder.errors.shown): unprintable code points escaped,
// then cut to `limit` code points, the last an ellipsis.
export function shown(text, limit = QUOTE_MAX) {
  const out = [];
  for (const char of String(text).slice(0, 2 * (limit + 1))) {
    if (out.length > limit) break;
    const code = char.codePointAt(0);
    if (unprintable(code)) out.push(...escaped(code));
    else out.push(char);
  }
  return out.length <= limit ? out.join("") : out.slice(0, limit - 1).join("") + "\\u2026";
}
"""


def printable_module() -> str:
    """The module's text."""
    ranges = json.dumps([list(r) for r in unprintable_ranges()], separators=(",", ":"))
    return (
        "// Made by the site's build (site_plugins/recipes/printable_js.py) from Python's\n"
        "// builder.text_safety.printable: do not edit.\n"
        f"export const QUOTE_MAX = {QUOTE_MAX};\n"
        f"const RANGES = {ranges};\n{_FUNCTIONS}"
    )
