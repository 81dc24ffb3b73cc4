"""The `vllm-recipes` tool: the console script's subcommands and what only they use.

Owns: `cli` (the dispatcher, the query, `--list`, `--version`, `--dynamo`, `--format`, `check`,
`schema`), `cli_common` (what every subcommand shares: exit codes, loading the catalogue, one
query's answer, one-line errors), the subcommands `cli_diff`, `run`, `verify`, `port` and
`upstream`, and their helpers: `catalogue` (the validated catalogue a wheel carries and the
cache holds), `answer_cache`, `detect` (hardware= of this machine) and `http_client`.

May import: `builder` and the data layer `vllm_recipes` (which imports nothing of this
package), never `site_plugins`; nothing imports it but its own console script and the tests.
The installed tool answers from its packaged catalogue with the standard library alone, so the
data layer's pydantic modules are imported only where a subcommand reads a recipe tree.
"""
