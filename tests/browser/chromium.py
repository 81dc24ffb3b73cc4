"""How tests and benchmarks start Debian's Chromium (installed by `make install-browser`)."""

from __future__ import annotations

__all__ = ["CHROMIUM", "CHROMIUM_ARGS"]

CHROMIUM = "/usr/bin/chromium"
# Without the background-networking flags Chromium itself calls outside hosts.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
