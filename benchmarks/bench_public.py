"""Side by side with the public site: when a model page becomes interactive, ours and theirs.

Issue 25 compares our model pages with the public catalogue's site (github.com/vllm-project/
recipes, a Next.js app) in one run on one machine: headless Chromium, the same models on both
(MODELS), the same probe on both. The probe clicks an available hardware pill that
is not pressed as soon as there is one, again every few frames while nothing happens (before
a page has wired its pills — or React has hydrated them — a click does nothing), and stops at
the first frame that shows that pill pressed (its command repainted with it; a hardware change
does not always change the command's text, so the text is not what is watched):
  command visible     the first frame (requestAnimationFrame, from navigation) in which a
                      <pre> holding `vllm serve` is on screen: the page's own command (the
                      guides' examples are further down), prerendered or made by script
  interactive, cold   a fresh browser context (empty cache), from navigation to that frame
  interactive, warm   the same context, a new tab (the first still open), another model
  … at 10 Mbit/s      Chromium's own emulation (CDP Network.emulateNetworkConditions, 10 Mbit/s
                      down and up, 40 ms round trip) on each tab, empty cache first
  bytes               the responses received whole until then (Playwright's request sizes)
Each figure is the median over RUNS loads of each model; the command's time is also given per
model (issue 36: DeepSeek-V4-Flash's, at 10 Mbit/s, no later than the public site's).

The public site is not part of this project; build and start it once (Node.js and pnpm):

    git clone https://github.com/vllm-project/recipes public-recipes && cd public-recipes
    pnpm install --frozen-lockfile
    # offline: drop next/font/google from src/app/layout.js (it downloads fonts at build), and
    # put an image at each public/providers/* path src/lib/providers.js names (the build
    # fetches them from huggingface.co; a missing one is a 404 page that `next start` renders
    # on its one thread, ahead of the page's scripts, which would slow the public site down)
    pnpm run build && pnpm exec next start -p 3000 -H 127.0.0.1

then, from this checkout:

    python -m benchmarks.bench_public --public http://127.0.0.1:3000 [--site site/]

`next start` sends gzip; ours goes out as `make serve` sends it (site_plugins.serve, brotli
where precompressed, else as bench_page's handler does). The public site's pages are served
from its own build cache (x-nextjs-cache: HIT), as a CDN would.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, sync_playwright

from benchmarks.bench_page import Received, served_site, throttle
from tests.browser.chromium import CHROMIUM, CHROMIUM_ARGS

RUNS = 5
LIMIT_MS = 60_000
"""A page that has not answered a click by then fails the run."""
MODELS = ("Qwen/Qwen3-8B", "deepseek-ai/DeepSeek-V4-Flash", "meta-llama/Llama-3.1-8B-Instruct")
"""Issue 25's pages that both sites have (the public site has no DeepSeek-V4.1-Flash)."""
RETRY_FRAMES = 3
"""Frames the probe waits for a click to change the command before it clicks again."""


@dataclass(frozen=True)
class Site:
    """Where a site's model pages are and how the probe finds its hardware pills."""

    name: str
    origin: str
    trailing_slash: bool
    pills: str  # a JS expression: the available hardware pills (an array of buttons)
    pressed: str  # a JS expression in `b`, a pill: whether it shows as pressed
    ident: str  # a JS expression in `b`, a pill: its name, the same across repaints

    def url(self, hf_id: str) -> str:
        return f"{self.origin}/{hf_id}{'/' if self.trailing_slash else ''}"


def ours(origin: str) -> Site:
    return Site(
        "ours", origin, True,
        pills="[...document.querySelectorAll('.rb-widget button.rb-pill[data-key=\"hardware\"]"
              ":not([aria-disabled])')]",
        pressed="b.getAttribute('aria-pressed') === 'true'",
        ident="b.dataset.value",
    )


def public(origin: str) -> Site:
    # Its hardware pills are the buttons that end in the memory per device ("141G/GPU"); the
    # pressed one has the accent border (CommandBuilder.jsx, Pill).
    return Site(
        "public", origin, False,
        pills="[...document.querySelectorAll('button[aria-label]')].filter((b) => "
              "/G\\/(GPU|CPU)$/.test(b.textContent) && !b.disabled)",
        pressed="b.className.includes('border-vllm-blue')",
        ident="b.querySelector('.font-semibold')?.textContent",
    )


# Click a hardware pill that is not pressed as soon as the page has one, and again every
# RETRY frames until the page shows it pressed (its command rendered with it): the time of
# that frame, in ms since navigation. Both sites repaint a click's pill, its command and the
# rest of the widget in one go (recipe-builder.js paint; React's render).
PROBE = """async ([pillsSource, pressedSource, identSource, limit]) => {
  const pills = new Function(`return ${pillsSource};`);
  const pressed = new Function("b", `return ${pressedSource};`);
  const ident = new Function("b", `return ${identSource};`);
  const frame = () => new Promise((done) => requestAnimationFrame(() => done()));
  let clicks = 0;
  while (performance.now() < limit) {
    const target = pills().find((b) => !pressed(b));
    if (!target) {
      await new Promise((done) => setTimeout(done, 10));
      continue;
    }
    const name = ident(target);
    target.click();
    clicks += 1;
    for (let i = 0; i < RETRY; i++) {
      await frame();
      const now = pills().find((b) => ident(b) === name);
      if (now && pressed(now)) return {interactive: performance.now(), clicks};
    }
  }
  return {interactive: null, clicks, seen: `${document.title}, ${document.readyState}, ` +
    `${document.querySelectorAll("button").length} buttons, ${pills().length} pills`};
}""".replace("RETRY", str(RETRY_FRAMES))


# Run in every document before its own scripts: note the first frame that shows the command.
COMMAND_VISIBLE = """(() => {
  const onScreen = () => [...document.querySelectorAll("pre")].some((pre) => {
    if (!pre.textContent.includes("vllm serve")) return false;
    const box = pre.getBoundingClientRect();
    return box.height > 0 && box.top < innerHeight && box.bottom > 0;
  });
  const tick = () => {
    if (document.body && onScreen()) window.__commandVisible = performance.now();
    else requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
})();"""


def first_click(page: Page, site: Site, hf_id: str, received: Received, throttled: bool
                ) -> dict[str, Any]:
    """Open `hf_id`'s page on `site` and probe it: when a click first showed its pill pressed."""
    if throttled:
        throttle(page)
    before = received.bytes
    page.goto(site.url(hf_id), wait_until="commit", timeout=120_000)
    result = page.evaluate(PROBE, [site.pills, site.pressed, site.ident, LIMIT_MS])
    if result["interactive"] is None:
        raise SystemExit(f"{site.url(hf_id)}: no hardware pill click took effect in "
                         f"{LIMIT_MS / 1000:.0f} s ({result['clicks']} clicks; {result['seen']})")
    visible = page.evaluate("window.__commandVisible ?? null")
    if visible is None:
        raise SystemExit(f"{site.url(hf_id)}: no `vllm serve` command on screen")
    return {"ms": result["interactive"], "clicks": result["clicks"],
            "bytes": received.bytes - before, "command_ms": visible}


def load_pair(browser: Browser, site: Site, hf_id: str, other_id: str,
              throttled: bool) -> dict[str, Any]:
    """A cold load of `hf_id`, then `other_id` in a new tab of the same context."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script(COMMAND_VISIBLE)
    if throttled:
        # A shared worker's requests escape the page's emulation (bench_page.interactive).
        context.add_init_script("delete window.SharedWorker;")
    received = Received(context)
    try:
        cold = first_click(context.new_page(), site, hf_id, received, throttled)
        warm = first_click(context.new_page(), site, other_id, received, throttled)
    finally:
        context.close()
    return {"cold_ms": cold["ms"], "warm_ms": warm["ms"], "cold_bytes": cold["bytes"],
            "warm_bytes": warm["bytes"], "command_ms": cold["command_ms"],
            "warm_command_ms": warm["command_ms"], "model": hf_id}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--public", required=True,
                        help="the public site's origin, e.g. http://127.0.0.1:3000")
    parser.add_argument("--site", type=Path, help="our built site (default: build one)")
    parser.add_argument("--runs", type=int, default=RUNS)
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs must be 1 or more")
    probe_url = public(args.public.rstrip("/")).url(MODELS[0])
    try:
        with urllib.request.urlopen(probe_url, timeout=30) as response:
            response.read(1)
    except (OSError, ValueError) as error:
        parser.error(f"--public: {probe_url} does not answer ({error}); is the public site "
                     "running? (see this module's docstring)")

    ids = list(MODELS)
    results: dict[tuple[str, bool], list[dict[str, Any]]] = {}
    with served_site(args.site) as (origin, _), sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        sites = [ours(origin), public(args.public.rstrip("/"))]
        for throttled in (False, True):
            for _ in range(args.runs):
                for index, hf_id in enumerate(ids):
                    other = ids[(index + 1) % len(ids)]
                    for site in sites:  # interleaved: both see the same machine
                        results.setdefault((site.name, throttled), []).append(
                            load_pair(browser, site, hf_id, other, throttled))
        browser.close()

    print(f"Model pages, ours and the public site's, {args.runs} loads of each of "
          f"{len(ids)} models ({', '.join(ids)}); headless Chromium; medians")
    print(f"  {'':52} {'ours':>9} {'public':>9} {'ratio':>7}")
    for throttled, label in ((False, "localhost"), (True, "10 Mbit/s, 40 ms RTT")):
        for key, what, unit in (("command_ms", "command visible, cold", "ms"),
                                ("warm_command_ms", "command visible, warm (new tab)", "ms"),
                                ("cold_ms", "interactive, cold", "ms"),
                                ("warm_ms", "interactive, warm (new tab)", "ms"),
                                ("cold_bytes", "bytes until then, cold", "B"),
                                ("warm_bytes", "bytes until then, warm", "B")):
            mine = statistics.median(r[key] for r in results[("ours", throttled)])
            theirs = statistics.median(r[key] for r in results[("public", throttled)])
            ratio = mine / theirs if theirs else float("nan")
            print(f"  {what + ', ' + label:52} {mine:9,.0f} {theirs:9,.0f} {ratio:6.2f}× {unit}")
    print("Command visible, cold, per model (medians, ms): ours / public")
    for throttled, label in ((False, "localhost"), (True, "10 Mbit/s, 40 ms RTT")):
        for hf_id in ids:
            mine, theirs = (statistics.median(r["command_ms"] for r in results[(name, throttled)]
                                              if r["model"] == hf_id)
                            for name in ("ours", "public"))
            print(f"  {hf_id + ', ' + label:52} {mine:9,.0f} {theirs:9,.0f} "
                  f"{mine / theirs:6.2f}×")
    return 0


if __name__ == "__main__":
    sys.exit(main())
