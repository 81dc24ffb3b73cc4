"""Diffs: a pasted vLLM command against the builder's (`command_diff`, `compare`), and the
published configurations joined to the builder selection closest to each (`published`,
`closest_selection`). Their HTML lives in `builder.views`.
"""
