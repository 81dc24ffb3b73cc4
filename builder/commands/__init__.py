"""Commands: a recipe and a selection in, the commands to run out.

`selection` turns a query into a complete selection and says why choices are unavailable;
`compose` makes one `vllm serve` command from it, recording where every option came from;
the layouts render it for where it runs (`single_node`, `multi_node`, `pd`, `kv_store`,
`omni`), each registered once as a deploy type in `deploy_types`; `build` is the entry point
that puts them together (install steps, Docker forms, notes); `requests` says what to send the
server once it is up, for the model's task (the one request registry; `request_text` writes
it as curl and as an OpenAI Python client script). `legacy_gpus` says what the checked vLLM
release runs on NVIDIA GPUs older than Ampere (a T4 in float16; no V100).
"""
