#!/usr/bin/python
"""Documentation of the validate_site action plugin (plugins/action/validate_site.py does the work)."""
from __future__ import annotations

DOCUMENTATION = r"""
---
module: validate_site
short_description: Validate an ONTAP AI pod site model before any device is touched
description:
  - Reads the site model of an inventory and checks it in two levels, reporting every problem at once.
  - An inventory directory (C(hosts.yml), C(group_vars/all/*.yml), C(host_vars/*.yml)) is read file by
    file, so each error names the file and line. An inventory without files, the JSON of
    C(ansible-inventory --list --export) as a file or as the executable script AWX gives a job, is read
    from that document, and each error names the group or host. Inline vault values stay encrypted.
  - Level 1 is the JSON Schema in C(schemas/) (types, required keys, formats, enums, no unknown keys).
  - Level 2 are rules across layers, for example unique addresses, addresses inside their networks,
    the same VLAN and a consistent MTU chain from switch port to ONTAP broadcast domain to host NIC,
    a data LIF per ONTAP node on every storage network, FlexGroup aggregates and constituents,
    export rules limited to declared client networks, the SVM root export policy admitting the
    Kubernetes node networks, Trident references, a single default StorageClass, vPC pairing.
  - Each error names where the value was written, the key path, what is wrong and how to fix it. Secret values are never shown.
  - A sizing check compares the GPUs' ingest demand with the storage supply and warns when it falls short.
  - Runs on the control node only; it contacts nothing.
version_added: "1.0.0"
author: ONTAP AI pod bundle contributors (!UNKNOWN)
options:
  inventory:
    description:
      - Inventory to validate, an inventory directory (or its C(hosts.yml)) or an exported JSON
        inventory (file or script).
      - Defaults to the first inventory source of the run.
    type: path
  files_dir:
    description:
      - Directory the model's relative file paths (C(ontap.ca_file), C(kubernetes.existing.kubeconfig)) resolve against.
      - Defaults to the inventory's directory. The playbooks pass C(aipod_site_files_dir) or the environment's
        E(AIPOD_SITE_FILES_DIR), for example the inventory's directory inside an AWX project.
      - Those paths must lie inside this directory unless the model's C(pod.security.allow_files_outside_inventory) is true;
        the validator opens no other file.
    type: path
  check_files:
    description:
      - Also check that files the model points at exist and are what they should be (the ONTAP CA bundle, a kubeconfig),
        without ever showing what they hold.
    type: bool
    default: true
  fail_on_warnings:
    description: Fail on warnings (sizing, even control-plane count) as well as on errors.
    type: bool
    default: false
  roles_dir:
    description: Roles whose C(meta/argument_specs.yml) define the role variables an inventory may override.
    type: path
  slice_group:
    description:
      - Set when this run is one slice of a sliced job (AWX job slicing), the id its slices share, such as AWX's
        C(awx_workflow_job_id). The playbooks pass C(aipod_slice_group).
      - The whole model is then read from O(files_dir), which must be given, and the hosts Ansible read must be a share
        of it, each with the model's groups and keys. The hosts of the other slices are returned in RV(job_slice).
    type: str
  sliceable:
    description:
      - Whether the playbook may run as a slice, its per-DGX plays on the slice's DGX and its shared plays skipped. A slice
        (O(slice_group)) of any other playbook is refused. The playbooks pass C(aipod_run_sliceable), which C(site.yml),
        C(compute.yml), C(verify.yml) and C(acceptance.yml) set.
    type: bool
    default: false
notes:
  - Action plugin; check mode changes nothing because the task never changes anything.
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - ontap_ai.pod.attributes.reads
"""

EXAMPLES = r"""
- name: Validate the site model (first play of site.yml)
  ontap_ai.pod.validate_site:

- name: Validate another inventory, failing on warnings too
  ontap_ai.pod.validate_site:
    inventory: inventories/sample
    fail_on_warnings: true
"""

RETURN = r"""
ok:
  description: True when the model has no errors.
  returned: always
  type: bool
site_name:
  description: The site's name, the model's C(pod.name) (else the inventory directory's name); it names the run lock.
  returned: always
  type: str
errors:
  description: Every error, each with rule, file, line, key, message and hint.
  returned: always
  type: list
  elements: dict
  sample:
    - rule: address-in-subnet
      file: inventories/site/host_vars/dgx01.yml
      line: 19
      key: "dgx01: dgx.storage_nics[0].address"
      message: 100.127.11.11 (dgx01 enp225s0f0) is outside 100.127.111.0/24 of network 'storage-a'
      hint: use a free host address of 100.127.111.0/24
site_warnings:
  description: Findings that do not stop the run (same shape as errors); Ansible also prints each as a warning.
  returned: always
  type: list
  elements: dict
summary:
  description: Counts of what the model describes (switches, ONTAP nodes, SVMs, data LIFs, DGX, servers).
  returned: always
  type: dict
sizing:
  description: GPU ingest demand, storage supply and their ratio, with the figures used.
  returned: always
  type: dict
seconds:
  description: Time the validation took.
  returned: always
  type: float
job_slice:
  description:
    - For a slice of a sliced job (O(slice_group)), the group, the slice's own hosts in inventory order, and per host of
      the other slices its groups and model keys (C(dgx), C(switch), C(server); vault-encrypted values left out).
    - None for any other run.
  returned: always
  type: dict
  sample:
    group: "1842"
    hosts: [dgx01, dgx03]
    others:
      dgx02: {groups: [dgx, kube_node], dgx: {model: DGX H100}}
"""
