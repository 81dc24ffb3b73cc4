"""mkdocs plugins of the vLLM Recipes site."""
