"""What type of value each `vllm serve` option takes, read from vLLM's source.

    python -m vllm_recipes.flag_types VLLM_PACKAGE_DIR [--check]

reads vLLM's package (e.g. an unpacked wheel's `vllm/`) with `ast`, without importing it (the
site's venv has no vLLM), and writes into `data/vllm-<version>-serve-flags.json` (see
`vllm_flags.py`), beside the keys vLLM's parser gave, these keys per option:

- `value_type`: `int`, `float`, `str`, `json` (an object, or a JSON text) or `bool` (a switch,
  `--x`/`--no-x`): the type vLLM's parser converts the value to (`_compute_kwargs` in
  `vllm/engine/arg_utils.py`, from the option's config field);
- `text_allowed`: a `json` option that also takes text that is not JSON (`union_dict_and_str`);
- `human_readable`: the integer may be written `1k`, `2M`, `1G` (`human_readable_int`);
  `auto`: `auto` and `-1` are accepted too (`human_readable_int_or_auto`);
- `nullable`: `None` (or an empty value) reads as unset (`optional_type`);
- `minimum`, `exclusive_minimum`, `maximum`, `exclusive_maximum`: the range the field's
  pydantic `Field(ge=, gt=, le=, lt=)` enforces when vLLM builds its config, before any model
  is loaded;
- `known_values`: for an option whose parser takes any text but whose config refuses all but
  these (a `Literal[...] | str` field with a validator, e.g. `--kv-cache-dtype`);
- `json_key_types`: for a JSON option backed by a config class (`--speculative-config`), the
  same keys for each of its fields that is a plain int, float, bool or str (pydantic, which
  reads the object, is lax: `"3"` is 3, `"False"` is false);
- `type_source`: the config field the above were read from;
- `registered_names`: for `--tool-call-parser` and `--reasoning-parser`, the parser names vLLM
  registers (the keys of `_TOOL_PARSERS_TO_REGISTER` in `vllm/tool_parsers/__init__.py` and of
  `_REASONING_PARSERS_TO_REGISTER` in `vllm/reasoning/__init__.py`): what
  `validate_api_server_args` accepts without a plugin (`check` also accepts the names a
  recipe's plugin files register).

Only keys that hold are written (an option of unknown type gets none), and the run is
repeatable: it replaces these keys and keeps every other. `--check` only reports whether the
file is up to date. When vLLM itself is installed, its live parser can give the same keys
(`action.type`, `action.choices`, and the config classes' pydantic field metadata); the
format is the contract, not this reader.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .vllm_flags import FLAGS_FILE

__all__ = ["TYPE_KEYS", "main", "read_types", "with_types", "without_types"]

TYPE_KEYS = ("value_type", "text_allowed", "human_readable", "auto", "nullable", "minimum",
             "exclusive_minimum", "maximum", "exclusive_maximum", "known_values",
             "json_key_types", "type_source", "registered_names")
"""The keys this module writes (and replaces on each run)."""
HUMAN_READABLE = {"max_num_batched_tokens", "max_num_scheduled_tokens", "kv_cache_memory_bytes",
                  "safetensors_prefetch_block_size", "max_num_queued_tokens"}
"""Integer fields whose parser is `human_readable_int` (`_compute_kwargs`)."""
VALIDATED_STR_LITERALS = {("CacheConfig", "cache_dtype"): "is_known_kv_cache_dtype"}
"""`Literal | str` fields whose config validator refuses values outside the Literal (the
validator, checked to exist in the source)."""
PARSER_REGISTRIES = {
    "--tool-call-parser": ("tool_parsers/__init__.py", "_TOOL_PARSERS_TO_REGISTER"),
    "--reasoning-parser": ("reasoning/__init__.py", "_REASONING_PARSERS_TO_REGISTER"),
}
"""Option → (module of vLLM's package, the dict whose keys are the parser names it registers)."""
READ = ("config", "engine", "entrypoints/common", "utils", "compilation",
        "model_executor/layers/quantization", "attention", "v1/attention", "platforms",
        "logging_utils", "transformers_utils", "lora", "multimodal", "tokenizers")
"""The parts of vLLM's package that define the serve options and their types."""
RANGE_KEYS = {"ge": "minimum", "gt": "exclusive_minimum", "le": "maximum",
              "lt": "exclusive_maximum"}
SCALARS = {"int", "float", "str", "bool"}
BUILTINS = {"int", "float", "bool", "dict", "list", "tuple", "set", "Mapping", "Any", ""}
"""Type names `_compute_kwargs` treats as built in (`is_not_builtin`); `""` is None. A `str`
beside a dict is not built in here: either way the parser takes text."""


@dataclass
class _Class:
    node: ast.ClassDef
    path: Path

    @property
    def decorated(self) -> bool:
        """A (pydantic) dataclass: `@config`, `@dataclass`, `@dataclass(...)`."""
        for deco in self.node.decorator_list:
            target = deco.func if isinstance(deco, ast.Call) else deco
            name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
            if name in ("config", "dataclass"):
                return True
        return False


@dataclass
class _Source:
    root: Path
    classes: dict[str, _Class] = field(default_factory=dict)
    aliases: dict[str, ast.expr] = field(default_factory=dict)
    texts: dict[Path, str] = field(default_factory=dict)

    @classmethod
    def read(cls, root: Path) -> _Source:
        source = cls(root)
        paths = [p for top in READ for p in sorted((root / top).rglob("*.py"))]
        for path in paths:
            try:
                text = path.read_text(encoding="utf-8")
                tree = ast.parse(text)
            except (SyntaxError, UnicodeDecodeError, ValueError):
                continue
            source.texts[path] = text
            for node in tree.body:
                if isinstance(node, ast.ClassDef):
                    source.classes.setdefault(node.name, _Class(node, path))
                elif (isinstance(node, ast.Assign) and len(node.targets) == 1
                      and isinstance(node.targets[0], ast.Name)
                      and isinstance(node.value, ast.Subscript | ast.BinOp)):
                    source.aliases.setdefault(node.targets[0].id, node.value)
                elif (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
                      and node.value is not None and "TypeAlias" in ast.unparse(node.annotation)):
                    source.aliases.setdefault(node.target.id, node.value)
        return source

    def fields(self, name: str, seen: frozenset[str] = frozenset()
               ) -> dict[str, tuple[ast.expr, ast.expr | None]]:
        """A class's annotated fields (its bases' first), name → (annotation, default)."""
        found: dict[str, tuple[ast.expr, ast.expr | None]] = {}
        known = self.classes.get(name)
        if known is None or name in seen:
            return found
        for base in known.node.bases:
            if isinstance(base, ast.Name):
                found.update(self.fields(base.id, seen | {name}))
        for node in known.node.body:
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                text = ast.unparse(node.annotation)
                if not text.startswith(("ClassVar", "InitVar")):
                    found[node.target.id] = (node.annotation, node.value)
        return found

    def is_dict(self, name: str) -> bool:
        """A class of the source that subclasses `dict` (argparse reads it as a JSON dict)."""
        known = self.classes.get(name)
        return known is not None and any(
            _name(base.value if isinstance(base, ast.Subscript) else base) == "dict"
            for base in known.node.bases)

    def hints(self, annotation: ast.expr, depth: int = 0) -> list[ast.expr]:
        """The union members of an annotation, aliases resolved, `Annotated` unwrapped."""
        if depth > 20:
            return [annotation]
        if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
            return self.hints(annotation.left, depth + 1) + self.hints(annotation.right, depth + 1)
        if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
            try:
                return self.hints(ast.parse(annotation.value, mode="eval").body, depth + 1)
            except SyntaxError:
                return [annotation]
        if isinstance(annotation, ast.Subscript):
            head = _name(annotation.value)
            items = _items(annotation.slice)
            if head in ("Optional",):
                return [*self.hints(items[0], depth + 1), ast.Constant(None)]
            if head == "Union":
                return [h for item in items for h in self.hints(item, depth + 1)]
            if head == "Annotated":
                return self.hints(items[0], depth + 1)
        if isinstance(annotation, ast.Name) and annotation.id in self.aliases:
            return self.hints(self.aliases[annotation.id], depth + 1)
        return [annotation]


def _name(node: ast.expr) -> str:
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def _items(node: ast.expr) -> list[ast.expr]:
    return list(node.elts) if isinstance(node, ast.Tuple) else [node]


def _literal_values(source: _Source, hint: ast.expr) -> list[Any] | None:
    if isinstance(hint, ast.Subscript) and _name(hint.value) == "Literal":
        values = []
        for item in _items(hint.slice):
            if not isinstance(item, ast.Constant):
                return None
            values.append(item.value)
        return values
    return None


def _range(source: _Source, annotation: ast.expr, default: ast.expr | None) -> dict[str, Any]:
    """`Field(ge=..., gt=..., le=..., lt=...)` of a default or inside `Annotated[...]`."""
    calls = [default] if isinstance(default, ast.Call) else []
    stack = [annotation]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Subscript) and _name(node.value) == "Annotated":
            calls += [item for item in _items(node.slice)[1:] if isinstance(item, ast.Call)]
        elif isinstance(node, ast.BinOp):
            stack += [node.left, node.right]
    found: dict[str, Any] = {}
    for call in calls:
        if _name(call.func) != "Field":
            continue
        for keyword in call.keywords:
            if keyword.arg in RANGE_KEYS:
                try:
                    value = ast.literal_eval(keyword.value)
                except ValueError:
                    continue
                if isinstance(value, int | float) and not isinstance(value, bool):
                    found[RANGE_KEYS[keyword.arg]] = value
    return found


def _field_types(source: _Source, cls: str, name: str, *, json_keys: bool = True,
                 in_json: bool = False) -> dict[str, Any]:
    """The keys of the module docstring for config field `cls.name` (as `_compute_kwargs`
    reads its type). `in_json`: a key of a JSON option, typed only when it is a plain int,
    float, bool or str (pydantic reads the rest: lists, enums, nested configs)."""
    annotation, default = source.fields(cls)[name]
    hints = source.hints(annotation)
    names = {_name(h.value) if isinstance(h, ast.Subscript) else _name(h) for h in hints}
    names = {"dict" if source.is_dict(n) else n for n in names}  # `is_dict_subclass`
    nullable = any(isinstance(h, ast.Constant) and h.value is None for h in hints)
    classes = [source.classes[n] for n in names if n in source.classes]
    dataclass_ = next((c for c in classes if c.decorated), None)
    out: dict[str, Any] = {}
    if in_json:
        kinds = names - {""}
        if len(kinds) == 1 and kinds <= SCALARS:
            out["value_type"] = kinds.pop()
    elif dataclass_ is not None:
        out["value_type"] = "json"
        if json_keys:
            keys = {}
            for key in source.fields(dataclass_.node.name):
                found = _field_types(source, dataclass_.node.name, key, json_keys=False,
                                     in_json=True)
                found.pop("type_source", None)
                if found:
                    keys[key] = found
            if keys:
                out["json_key_types"] = keys
    elif names >= {"bool", "str"} and nullable and len(names - {"bool", "str", ""}) == 0:
        out["value_type"] = "str"  # a bare flag is True, a value a str
    elif "bool" in names:
        out["value_type"] = "bool"
    elif "Literal" in names:
        literal = next((v for h in hints if (v := _literal_values(source, h)) is not None), [])
        kinds = {type(v).__name__ for v in literal}
        out["value_type"] = kinds.pop() if len(kinds) == 1 and kinds <= SCALARS else "str"
        validator = VALIDATED_STR_LITERALS.get((cls, name))
        if literal and "str" in names and validator and validator in source.texts.get(
                source.classes[cls].path, ""):
            out["known_values"] = sorted(str(v) for v in literal)
    elif names & {"tuple", "list", "set"}:
        container = next(h for h in hints if isinstance(h, ast.Subscript)
                         and _name(h.value) in ("tuple", "list", "set"))
        element = {_name(h) for h in source.hints(_items(container.slice)[0])}
        out["value_type"] = next((t for t in ("int", "float") if element == {t}), "str")
    elif "int" in names:
        out["value_type"] = "int"
        if name == "max_model_len":
            out["human_readable"] = out["auto"] = True
        elif name in HUMAN_READABLE:
            out["human_readable"] = True
    elif "float" in names:
        out["value_type"] = "float"
    elif "dict" in names or "Mapping" in names:
        out["value_type"] = "json"
        if names - BUILTINS:  # `union_dict_and_str` (str, or a class): text that is no JSON
            out["text_allowed"] = True
    elif "str" in names or classes:
        out["value_type"] = "str"
    if not out:
        return {}
    if nullable and out["value_type"] != "bool":
        out["nullable"] = True
    if out["value_type"] in ("int", "float"):
        out.update(_range(source, annotation, default))
    path = source.classes[cls].path.relative_to(source.root.parent).as_posix()
    out["type_source"] = f"{path} {cls}.{name}"
    return out


@dataclass
class _Option:
    cls: str | None = None
    field: str | None = None
    explicit: str | None = None
    """A `type=` given to add_argument (int, float, str)."""
    json: bool = False
    """Its kwargs' type was replaced by a JSON parser (`kw["x"]["type"] = optional_type(...)`)."""


def _options(source: _Source) -> dict[str, _Option]:
    """Option string → where its argparse kwargs come from."""
    found: dict[str, _Option] = {}
    for cls in ("EngineArgs", "AsyncEngineArgs"):
        known = source.classes.get(cls)
        if known is None:
            continue
        for node in known.node.body:
            if isinstance(node, ast.FunctionDef) and node.name == "add_cli_args":
                found.update(_calls(node))
    for cls in ("BaseFrontendArgs", "FrontendArgs"):
        for name in source.fields(cls):
            found.setdefault(f"--{name.replace('_', '-')}", _Option("FrontendArgs", name))
    for path, text in source.texts.items():
        if path.name == "cli_args.py" and "def make_arg_parser" in text:
            for tree_node in ast.walk(ast.parse(text)):
                if isinstance(tree_node, ast.FunctionDef) and tree_node.name == "make_arg_parser":
                    found.update(_calls(tree_node))
    return found


def _calls(function: ast.FunctionDef) -> dict[str, _Option]:
    kwargs: dict[str, str] = {}
    jsons: set[tuple[str, str]] = set()
    found: dict[str, _Option] = {}
    for node in ast.walk(function):
        if (isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
                and isinstance(node.value, ast.Call) and _name(node.value.func) == "get_kwargs"
                and node.value.args and isinstance(node.value.args[0], ast.Name)):
            kwargs[node.targets[0].id] = node.value.args[0].id
        if (isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Subscript)
                and "json.loads" in ast.unparse(node.value)):
            target = node.targets[0]
            inner = target.value
            if (isinstance(inner, ast.Subscript) and isinstance(inner.value, ast.Name)
                    and isinstance(inner.slice, ast.Constant)):
                jsons.add((inner.value.id, str(inner.slice.value)))
    for node in ast.walk(function):
        if not (isinstance(node, ast.Call) and _name(node.func) == "add_argument"):
            continue
        strings = [a.value for a in node.args
                   if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        option = _Option()
        for keyword in node.keywords:
            value = keyword.value
            if keyword.arg is None and isinstance(value, ast.Dict):  # **{**kw["x"], ...}
                value = next((v for k, v in zip(value.keys, value.values, strict=True)
                              if k is None), value)
            if keyword.arg is None and isinstance(value, ast.Subscript) and isinstance(
                    value.value, ast.Name) and isinstance(value.slice, ast.Constant):
                option.cls = kwargs.get(value.value.id)
                option.field = str(value.slice.value)
                option.json = (value.value.id, option.field) in jsons
            elif keyword.arg == "type" and isinstance(value, ast.Name):
                option.explicit = value.id
            elif keyword.arg == "action":
                option.explicit = "bool"
        for string in strings:
            if string.startswith("--"):
                found[string] = option
    return found


def registered_names(root: Path, module: str, name: str) -> list[str] | None:
    """The string keys of the dict `name` assigned at the top of `module` (under `root`, vLLM's
    package), sorted; None when the module or the dict is not there."""
    path = root / module
    if not path.is_file():
        return None
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else (
            node.target if isinstance(node, ast.AnnAssign) else None)
        value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else None
        if isinstance(target, ast.Name) and target.id == name and isinstance(value, ast.Dict):
            return sorted(k.value for k in value.keys
                          if isinstance(k, ast.Constant) and isinstance(k.value, str))
    return None


def read_types(root: Path, flags: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Option → the keys of the module docstring, for the options of `flags` found in the
    source at `root` (vLLM's package directory)."""
    source = _Source.read(root)
    options = _options(source)
    out: dict[str, dict[str, Any]] = {}
    for flag, spec in flags.items():
        option = options.get(flag, _Option())
        found: dict[str, Any] = {}
        if option.cls and option.field and option.field in source.fields(option.cls):
            found = _field_types(source, option.cls, option.field)
        if option.explicit in SCALARS:
            kept = {k: v for k, v in found.items() if k in RANGE_KEYS.values()
                    and option.explicit in ("int", "float")}
            found = {"value_type": option.explicit, **kept}
        if option.json:
            found["value_type"] = "json"
            found["nullable"] = True
        if not spec.get("takes_value"):  # a switch, whatever its field (`--disable-x` too)
            found = {"value_type": "bool", **({"type_source": found["type_source"]}
                                              if "type_source" in found else {})}
        if flag in PARSER_REGISTRIES:
            names = registered_names(root, *PARSER_REGISTRIES[flag])
            if names:
                found["registered_names"] = names
        if found:
            out[flag] = found
    for flag, spec in flags.items():  # a short alias (`-tp`) is its long option
        if not flag.startswith("--") and flag not in out:
            long = next((f for f, s in flags.items() if f.startswith("--") and f in out
                         and s.get("dest") == spec.get("dest")), None)
            if long is not None:
                out[flag] = out[long]
    return out


def without_types(flags: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The flag list as vLLM's parser gives it: every key but the ones this module writes."""
    return {flag: {k: v for k, v in spec.items() if k not in TYPE_KEYS}
            for flag, spec in flags.items()}


def with_types(flags: dict[str, dict[str, Any]], types: dict[str, dict[str, Any]]
               ) -> dict[str, dict[str, Any]]:
    """The parser's flag list with this module's keys (`read_types`) added."""
    return {flag: {**spec, **types.get(flag, {})} for flag, spec in without_types(flags).items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vllm_recipes.flag_types",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("source", type=Path, help="vLLM's package directory (…/vllm)")
    parser.add_argument("--check", action="store_true",
                        help="only say whether the flags file is up to date (exit 1 if not)")
    args = parser.parse_args(argv)
    if not (args.source / "engine" / "arg_utils.py").is_file():
        print(f"{args.source}: not vLLM's package (no engine/arg_utils.py)", file=sys.stderr)
        return 2
    current = FLAGS_FILE.read_text(encoding="utf-8")
    flags: dict[str, dict[str, Any]] = json.loads(current)
    text = json.dumps(with_types(flags, read_types(args.source, flags)), indent=1,
                      sort_keys=True) + ("\n" if current.endswith("\n") else "")
    updated = json.loads(text)
    if args.check:
        print("up to date" if current == text else f"{FLAGS_FILE.name} is stale")
        return 0 if current == text else 1
    FLAGS_FILE.write_text(text, encoding="utf-8")
    typed = sum(1 for spec in updated.values() if "value_type" in spec)
    print(f"{FLAGS_FILE.name}: {typed} of {len(updated)} options typed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
