"""The home page's notice repeats a URL value as every Python notice does: `printable.js`
(made by the build from `builder.text_safety`) gives `builder.errors.shown`'s text, run under
Node over hostile and random values. (It stripped what Python escapes.)"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path

from builder.errors import QUOTE_MAX, shown
from site_plugins.recipes.printable_js import printable_module

NODE = shutil.which("node") or "node"  # (make install-js needs it too)
HOSTILE = [
    "", "plain", "bo\x1b[31mgus", "a\nb\tc\rd", "\u202eevil\u202c", "zero\u200bwidth",
    "nb\xa0sp", "soft\xadhyphen", "\x7f\x80\x9f", "bom\ufeff", "line\u2028sep\u2029",
    "tag\U000e0001s", "emoji 😀 ok", "lone \ud800 surrogate", "é" * 100, "x" * 5000,
    "\x1b" * 30, "😀" * 61, "\U000e0001" * 7 + "y" * 60, "quote'\"\\", "ab\u0378cd",
]


def random_values(count: int) -> list[str]:
    rng = random.Random(36)
    # (No surrogates: a high one then a low one are one character to JavaScript, two to
    # Python; a page's value never holds them apart. A lone one is among HOSTILE.)
    pools = [range(0x00, 0x100), range(0x2000, 0x2070), range(0xD7F0, 0xD800),
             range(0xE000, 0xE010),
             range(0xFFF0, 0x10000), range(0x1F600, 0x1F610), range(0xE0000, 0xE0080),
             range(0x10FFF0, 0x110000)]
    return ["".join(chr(rng.choice(rng.choice(pools))) for _ in range(rng.randint(0, 80)))
            for _ in range(count)]


def test_printable_js_shows_what_python_shows(tmp_path: Path) -> None:
    module = tmp_path / "printable.mjs"
    module.write_text(printable_module(), encoding="utf-8")
    values = [*HOSTILE, *random_values(400)]
    limits = [QUOTE_MAX, 1, 5, 300]
    script = ("import { shown } from './printable.mjs';"
              "let data = ''; process.stdin.on('data', (c) => { data += c; });"
              "process.stdin.on('end', () => { const [values, limits] = JSON.parse(data);"
              "process.stdout.write(JSON.stringify(limits.map((l) => values.map("
              "(v) => shown(v, l))))); });")
    (tmp_path / "run.mjs").write_text(script, encoding="utf-8")
    run = subprocess.run([str(NODE), "run.mjs"], cwd=tmp_path, capture_output=True,
                         input=json.dumps([values, limits]), text=True, check=True)
    got = json.loads(run.stdout)
    for limit, row in zip(limits, got, strict=True):
        want = [shown(value, limit) for value in values]
        wrong = [(v, g, w) for v, g, w in zip(values, row, want, strict=True) if g != w]
        assert not wrong, f"limit {limit}: {wrong[:3]}"
    assert got[0][2] == "bo\\x1b[31mgus" and got[0][4] == "\\u202eevil\\u202c"
