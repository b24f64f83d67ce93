"""What the compute layer decides about a DGX from readings of it (pure Python, no Ansible needed).

Used by the compute modules (through ansible.module_utils), the aipod_compute filters and the tests.
"""
