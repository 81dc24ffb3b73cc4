"""The page's HTML, made from builder results: the command-builder widget (`widget`), the
command diff (`diff`), the Dynamo widget (`dynamo`) and the deployment files (`files`).
No rule lives here: each view shows what `builder.commands`, `builder.diff` or
`builder.dynamo` decided.
"""
