"""The mkdocs plugin that turns the recipe YAML into guide pages and JSON endpoints."""
