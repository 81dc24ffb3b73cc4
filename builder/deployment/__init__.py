"""Where a server runs, beyond the shell command: the files it takes (vLLM config, Docker
Compose, Kubernetes; `files`) and the one small request that shows it works (`smoke`).
Both are made from a `builder.commands` result, never from a second rule set.
"""
