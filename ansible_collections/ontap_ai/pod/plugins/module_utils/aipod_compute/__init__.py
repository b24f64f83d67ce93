"""Readings of a DGX (fstab, GPUs, NFS, kernel parameters), shipped with the compute modules to the host.

Plain Python and ansible.module_utils only. What the controller decides from these readings is in
plugins/plugin_utils/aipod_compute.
"""
