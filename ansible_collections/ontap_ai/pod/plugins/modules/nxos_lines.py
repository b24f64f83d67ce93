#!/usr/bin/python
"""Module: send the lines of an NX-OS configuration block that the running configuration lacks."""
from __future__ import annotations

DOCUMENTATION = r"""
---
module: nxos_lines
short_description: Send an NX-OS switch the configuration lines its running configuration lacks
description:
  - Compares a configuration block with the switch's running configuration line by line, each line with its parents,
    through the connection's cliconf (C(cisco.nxos.nxos) over C(ansible.netcommon.network_cli)), and sends only the lines
    the running configuration lacks, in configuration mode. With O(match=none) it sends every line.
  - The block is written as C(show running-config) prints it (two spaces per level), so that once it is in place the
    comparison is exact and a second run sends nothing.
  - It does what C(ansible.netcommon.cli_config) does with C(diff_match=line), without the warning that module returns on
    every change. ansible.netcommon 8.7.1 returns that warning as a string rather than a list, and ansible-core prints a
    string of warnings one character per line. C(cisco.nxos.nxos_config) returns the same warning on every change made
    with C(lines). The bundle's docs/deprecations.md tracks it.
  - Check mode reads and compares, and sends nothing. With C(--diff), the lines it sends (or would send) are the diff.
version_added: 1.3.0
author: ONTAP AI pod bundle contributors (!UNKNOWN)
options:
  config:
    description:
      - The configuration block, as C(show running-config) prints it. Mutually exclusive with O(lines).
    type: str
  lines:
    description: Lines under O(parents), each as the switch prints it without indentation.
    type: list
    elements: str
  parents:
    description: The lines that O(lines) sit under, outermost first (C(interface Ethernet1/1)).
    type: list
    elements: str
    default: []
  match:
    description:
      - C(line) sends the lines the running configuration lacks; C(none) sends every line, for a caller that has compared
        already.
    type: str
    choices: [line, none]
    default: line
notes:
  - Runs only over C(ansible.netcommon.network_cli) with C(ansible_network_os=cisco.nxos.nxos).
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
    details: Check mode compares and returns the lines it would send, without sending them.
  diff_mode:
    support: full
  platform:
    platforms: nxos
"""

EXAMPLES = r"""
- name: Configure lossless RoCE QoS as show running-config prints it
  ontap_ai.pod.nxos_lines:
    config: "{{ switch_nxos_intent.qos_config }}"

- name: Set a trunk's allowed VLAN list whole
  ontap_ai.pod.nxos_lines:
    parents:
      - interface Ethernet1/1
    lines:
      - switchport trunk allowed vlan 3101,3111-3112
    match: none
"""

RETURN = r"""
commands:
  description: The lines sent to the switch (or, in check mode, that would be sent), each parent before its children.
  returned: always
  type: list
  elements: str
  sample:
    - interface Ethernet1/1
    - switchport trunk allowed vlan 3101,3111-3112
"""

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.connection import Connection, ConnectionError


def block_text(parents: list[str], lines: list[str]) -> str:
    """The configuration block of lines under parents, indented as show running-config prints it."""
    text = [f"{'  ' * depth}{parent}" for depth, parent in enumerate(parents)]
    text += [f"{'  ' * len(parents)}{line}" for line in lines]
    return "\n".join(text)


def main() -> None:
    module = AnsibleModule(
        argument_spec=dict(
            config=dict(type="str"),
            lines=dict(type="list", elements="str"),
            parents=dict(type="list", elements="str", default=[]),
            match=dict(type="str", choices=["line", "none"], default="line"),
        ),
        mutually_exclusive=[("config", "lines")],
        required_one_of=[("config", "lines")],
        supports_check_mode=True,
    )
    params = module.params
    candidate = params["config"] if params["config"] is not None else block_text(params["parents"], params["lines"])
    try:
        connection = Connection(module._socket_path)
        running = connection.get_config() if params["match"] == "line" else None
        difference = connection.get_diff(candidate=candidate, running=running, diff_match=params["match"],
                                         diff_ignore_lines=[], path=[], diff_replace="line")
        commands = [line for line in (difference.get("config_diff") or "").splitlines() if line.strip()]
        if commands and not module.check_mode:
            connection.edit_config(candidate=commands)
    except ConnectionError as error:
        module.fail_json(msg=str(error), code=getattr(error, "code", None))
    result = {"changed": bool(commands), "commands": commands}
    if module._diff and commands:
        result["diff"] = {"prepared": "\n".join(commands)}
    module.exit_json(**result)


if __name__ == "__main__":
    main()
