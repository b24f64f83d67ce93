"""The VM lab (lab/vms): QEMU VMs with real kernels for what containers cannot prove.

The plan and the data path derive from the site model through the bundle's own library
(the collection's plugins/plugin_utils/aipod_site), made importable here.
"""
import os
import sys

_REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
if _REPO not in [os.path.normpath(p) for p in sys.path]:
    sys.path.insert(0, _REPO)
