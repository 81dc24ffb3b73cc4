"""mkdocs plugins of the vLLM Recipes site, and the `make serve` server (`serve`).

May import: `builder` and the data layer `vllm_recipes`, never the `vllm-recipes` tool
(`vllm_recipes_cli`). Installed from the checkout only (`make install`): the tool's wheel does
not carry it (setup.py, build_backend.py).
"""
