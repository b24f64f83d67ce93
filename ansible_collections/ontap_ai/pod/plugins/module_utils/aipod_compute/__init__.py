"""What the compute layer decides about a DGX from readings of it.

The readings (fstab, gpus, nfs, sysctl) are plain Python, imported by the compute modules through
ansible.module_utils; drift.py runs on the controller (the aipod_compute filters) and uses Ansible's
own merge_hash where it must agree with a task's combine().
"""
