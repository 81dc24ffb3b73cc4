"""NVIDIA Dynamo deployment targets: a framework × GPU × topology selection in, the target,
its files and the steps to deploy it out (`targets`). Its HTML lives in `builder.views.dynamo`.
"""
