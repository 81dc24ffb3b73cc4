"""A request (URL, JSON body or form fields) as text to paste: a `curl` command, and a script
for the OpenAI Python client (`openai` package; vLLM ignores the API key unless it is started
with `--api-key`). Strings are quoted for the shell with `shlex.quote`, and for Python as
JSON string literals (which Python reads as the same string)."""

from __future__ import annotations

import json
import shlex
from typing import Any

__all__ = ["curl_text", "python_text", "read_curl"]

WIDTH = 88
"""A Python literal longer than this is written one item per line."""
PRINTS = {
    "chat.completions.create": ["message = response.choices[0].message", "print(message.content)"],
    "completions.create": ["print(response.choices[0].text)"],
    "embeddings.create": ["print(len(response.data[0].embedding), \"dimensions\")"],
    "audio.transcriptions.create": ["print(response.text)"],
}
"""What each OpenAI client call prints of its response."""


def curl_text(url: str, body: dict[str, Any] | None, form: dict[str, Any] | None,
              output: str | None = None, decode: str | None = None) -> str:
    """`curl` posting `body` as JSON (or `form` as multipart fields) to `url`; `output`: the
    file the answer goes to, through the shell pipeline `decode` when there is one."""
    lines = [f"curl -X POST {url}"]
    if form is not None:
        lines += [f"-F {shlex.quote(f'{name}={value}')}" for name, value in form.items()]
    else:
        lines += ['-H "Content-Type: application/json"',
                  f"-d {shlex.quote(_lit(body or {}, python=False))}"]
    tail = ""
    if output and decode:
        tail = f" \\\n  | {decode} > {output}"
    elif output:
        lines.append(f"--output {output}")
    return " \\\n  ".join(lines) + tail


QUIET = ("-s", "-S", "-sS", "--silent", "--show-error", "--fail-with-body", "-X", "POST")
"""curl words that do not change what is sent."""


def read_curl(text: str) -> tuple[str, dict[str, Any] | None, dict[str, str] | None,
                                  str | None] | None:
    """(URL, JSON body, form fields, output file) of a recipe's own request when it is one
    plain `curl` (no shell variables, pipes or other commands); None otherwise."""
    if "$" in text or "|" in text or "`" in text or not text.startswith("curl "):
        return None
    try:
        words = shlex.split(text.replace("\\\n", " "))
    except ValueError:
        return None
    url = output = None
    body: dict[str, Any] | None = None
    form: dict[str, str] | None = None
    rest = iter(words[1:])
    for word in rest:
        if word in QUIET:
            continue
        if word.startswith("http://") and url is None:
            url = word
        elif word == "-H":
            if next(rest, "").split(":")[0].strip().lower() not in ("content-type", "accept"):
                return None
        elif word in ("-d", "--data", "--data-raw"):
            try:
                body = json.loads(next(rest, ""))
            except ValueError:
                return None
        elif word == "-F":
            name, _, value = next(rest, "").partition("=")
            form = {**(form or {}), name: value}
        elif word in ("-o", "--output"):
            output = next(rest, None)
        else:
            return None
    if url is None or (body is None) == (form is None) or not isinstance(body or {}, dict):
        return None
    return url, body, form, output


_string = json.encoder.encode_basestring
"""A string as a JSON literal, non-ASCII kept (what `json.dumps(..., ensure_ascii=False)`
writes for a string)."""


def _lit(value: Any, indent: int = 0, *, python: bool = True) -> str:
    """`value` (JSON data) as a Python literal (`python`, else as JSON), one item per line
    when it is long (indented by 4 in Python, 2 in JSON)."""
    step = 4 if python else 2
    if isinstance(value, str):
        return _string(value)  # json.dumps(value, ensure_ascii=False), without its set-up
    if isinstance(value, bool) or value is None:
        return repr(value) if python else json.dumps(value)
    if isinstance(value, int):
        return int.__repr__(value)  # as json.dumps writes an int
    if isinstance(value, float):
        return json.dumps(value)
    if isinstance(value, dict):
        items = [f"{_lit(k)}: {_lit(v, indent + step, python=python)}" for k, v in value.items()]
        ends = "{}"
    else:
        items = [_lit(v, indent + step, python=python) for v in value]
        ends = "[]"
    inline = ends[0] + ", ".join(items) + ends[1]
    if indent + len(inline) <= WIDTH and "\n" not in inline:
        return inline
    pad = " " * (indent + step)
    comma = "," if python else ""  # JSON has no trailing comma
    return (ends[0] + "\n" + ",\n".join(pad + item for item in items) + comma + "\n"
            + " " * indent + ends[1])


def _file(value: Any) -> str | None:
    """The file a form value uploads (`@name`), or None."""
    return value[1:] if isinstance(value, str) and value.startswith("@") else None


def _call(method: str, kwargs: list[tuple[str, str]]) -> list[str]:
    return [f"response = client.{method}(", *(f"    {k}={v}," for k, v in kwargs), ")"]


def python_text(base_url: str, path: str, body: dict[str, Any] | None,
                form: dict[str, Any] | None, call: str | None, *, output: str | None = None,
                binary: bool = False, tools: bool = False, reasoning: bool = False) -> str:
    """A script that sends the request with the OpenAI Python client: through its method
    `call` (`chat.completions.create`, ...), else `client.post` to `path` (relative to
    `base_url`). `output`: the file the answer goes to (the response's bytes when `binary`,
    else its base64 `data[0].b64_json`); `tools`/`reasoning`: also print the tool calls and the
    reasoning of a chat completion."""
    head = ["from openai import OpenAI", "",
            f"client = OpenAI(base_url={_lit(base_url)}, api_key=\"EMPTY\")"]
    fields = form if form is not None else body or {}
    if call is not None:
        kwargs = [(k, f"open({_lit(name)}, \"rb\")" if (name := _file(v)) else _lit(v, 4))
                  for k, v in fields.items()]
        lines = _call(call, kwargs) + PRINTS[call]
        if tools:
            lines.append("print(message.tool_calls)")
        if reasoning:  # what the reasoning parser split off the answer
            lines.append("print(getattr(message, \"reasoning\", None))")
        return "\n".join([*head, *lines]) + "\n"
    relative = path.removeprefix("/v1")
    files = {k: name for k, v in fields.items() if (name := _file(v))}
    plain = {k: v for k, v in fields.items() if k not in files}
    kwargs = [("path", _lit(relative)), ("body", _lit(plain, 4))]
    if files:
        kwargs.append(("files", "{" + ", ".join(f"{_lit(k)}: open({_lit(n)}, \"rb\")"
                                                  for k, n in files.items()) + "}"))
    if form is not None:
        kwargs.append(("options", '{"headers": {"Content-Type": "multipart/form-data"}}'))
    kwargs.append(("cast_to", "bytes" if binary else "object"))
    lines = ["response = client.post(", f"    {kwargs[0][1]},",
             *(f"    {k}={v}," for k, v in kwargs[1:]), ")"]
    if output and binary:
        lines += [f"with open({_lit(output)}, \"wb\") as out:", "    out.write(response)"]
    elif output:
        head[0:0] = ["import base64", ""]
        lines += [f"with open({_lit(output)}, \"wb\") as out:",
                  "    out.write(base64.b64decode(response[\"data\"][0][\"b64_json\"]))"]
    else:
        lines.append("print(response)")
    return "\n".join([*head, *lines]) + "\n"
