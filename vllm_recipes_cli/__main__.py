"""`python -m vllm_recipes_cli` is the `vllm-recipes` console script."""

import sys

from .cli import main

sys.exit(main())
