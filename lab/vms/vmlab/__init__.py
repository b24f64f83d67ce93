"""The VM lab (lab/vms): QEMU VMs with real kernels for what containers cannot prove.

The plan and the data path derive from the site model through the bundle's own library
(plugins/module_utils/aipod_site), made importable here.
"""
import os
import sys

_MODULE_UTILS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "plugins", "module_utils")
if os.path.normpath(_MODULE_UTILS) not in [os.path.normpath(p) for p in sys.path]:
    sys.path.insert(0, os.path.normpath(_MODULE_UTILS))
