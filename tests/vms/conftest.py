"""The VM lab fixture for the tests of this directory (lab_vms.py)."""
from lab_vms import vm_lab  # noqa: F401  (a fixture: pytest finds it in this module)
