"""What the compute layer decides about a DGX on the controller: the text of the files it keeps
(files.py) and every way a host differs from its plan (pending.py). pending.py uses Ansible's own
merge_hash where it must agree with a task's combine(), and the host readings' parsers of
plugins/module_utils/aipod_compute where it must agree with the host.
"""
