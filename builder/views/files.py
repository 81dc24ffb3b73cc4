"""The widget's deployment files (vLLM config, Docker Compose, Kubernetes) as HTML: one
disclosure per format, each with the command that uses the file, the file, Copy and a Download
link (a `data:` URL, so it needs no script). A format the selection does not offer shows why.
The files are `deploy_files.deploy_files`, the same as `vllm-recipes --format`; this module only
lays them out (every string escaped)."""

from __future__ import annotations

from ..deployment.files import data_url, deploy_files
from ..html_text import escape
from ..types import Data, Result

__all__ = ["files_html"]


def files_html(catalog: Data, recipe: Data, result: Result) -> str:
    items = []
    for fmt, entry in deploy_files(catalog, recipe, result).items():
        label = escape(entry["label"])
        if not entry["available"]:
            items.append(
                f'<details class="rb-file" data-format="{escape(fmt)}"><summary>{label} '
                '<small>not offered</small></summary>'
                f'<p class="rb-file-why">{escape(entry["reason"] or "")}</p></details>')
            continue
        name = escape(entry["filename"])
        items.append(
            f'<details class="rb-file" data-format="{escape(fmt)}"><summary>{label} '
            f'<small>{name}</small></summary>'
            f'<div class="rb-file-block" data-role="file-{escape(fmt)}">'
            f'<div class="rb-block-head"><code class="rb-file-usage">{escape(entry["usage"] or "")}'
            f'</code><button type="button" class="rb-copy" data-copy="file-{escape(fmt)}" '
            f'aria-label="Copy: {name}">Copy</button>'
            f'<a class="rb-download" download="{name}" href="{escape(data_url(entry))}" '
            f'aria-label="Download {name}">Download</a></div>'
            f'<pre class="rb-code"><code tabindex="0">{escape(entry["text"] or "")}</code></pre>'
            "</div></details>")
    return ('<div class="rb-files"><p class="rb-files-label">Or run it from a file</p>'
            f'{"".join(items)}</div>')
