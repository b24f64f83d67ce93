"""Site validation, the roof over the layers: the schema (level 1), then every layer's rules and the
rules across layers (level 2), every problem at once (validate.py); and the model Ansible resolved
held against the model read from the files (resolved.py). rules/ assembles the layers' rules with
its own cross-layer ones.
"""
