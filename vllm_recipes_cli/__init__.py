"""The `vllm-recipes` tool: the console script's subcommands and what only they use.

Owns: `cli` (the dispatcher, the query, `--list`, `--version`, `--dynamo`, `--format`, `check`,
`schema`), `cli_common` (what every subcommand shares: exit codes, loading the catalogue, one
query's answer, one-line errors), the subcommands `cli_diff`, `run`, `verify`, `port` and
`upstream`, and their helpers: `answer_cache` (the validated catalogue of an earlier run),
`detect` (hardware= of this machine), `http_client` and `errors` (`UsageError`).

May import: `builder` and the data layer `vllm_recipes` (which imports nothing of this
package), never `site_plugins`; nothing imports it but its own console script and the tests.
The installed tool answers from the catalogue its wheel carries (`vllm_recipes.catalogue`)
with the standard library alone, so the data layer's pydantic modules are imported only where
a subcommand reads a recipe tree.
"""
