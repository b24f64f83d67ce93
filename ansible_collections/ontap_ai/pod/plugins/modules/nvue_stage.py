#!/usr/bin/python
"""Module: stage NVUE commands in a fresh pending revision, each run as an argument list, and diff it."""
from __future__ import annotations

DOCUMENTATION = r"""
---
module: nvue_stage
short_description: Stage NVUE set and unset commands in a pending revision, without a shell
description:
  - Drops any pending NVUE revision (C(nv config detach)), saying so when it held changes, then runs each command of O(commands) as
    an argument list, never through a shell, so that text from the site model (a port description)
    stays one argument whatever it holds. Returns C(nv config diff) of the revision it staged.
  - Each command is a line as the C(ontap_ai.pod.aipod_nvue_commands) filter renders it, with its
    arguments quoted for a POSIX shell. Only C(nv set) and C(nv unset) commands are run; lines
    starting with C(#) are comments and are skipped whole. Any other line fails the module before
    anything is staged.
  - Staging changes nothing that is running, so the module reports no change and runs in check mode.
version_added: 1.3.0
author: ONTAP AI pod bundle contributors (!UNKNOWN)
options:
  commands:
    description: NVUE commands and comment lines, in the order to stage them.
    type: list
    elements: str
    required: true
  owned_ports:
    description:
      - The switch ports the model configures (its ports and the members of its bonds).
      - A model port that a bond the model does not own holds (a brownfield switch's old bond) is taken out of that bond
        first (C(nv unset interface <bond> bond member <port>)), as NVUE refuses bridge settings on a bond member. Read from
        C(nv config show -o json); the foreign bond itself stays.
    type: list
    elements: str
    default: []
  owned_bonds:
    description: The bonds the model configures; their members are the model's to set.
    type: list
    elements: str
    default: []
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: partial
    details:
      - It stages a pending revision and compares it in check mode too, as a preview needs the comparison; it never
        applies one. Run it with check mode off for the task, as the example does.
  diff_mode:
    support: none
  platform:
    platforms: posix
"""

EXAMPLES = r"""
- name: Stage the switch's configuration and compare it with the applied one
  ontap_ai.pod.nvue_stage:
    commands: "{{ switch_cumulus_commands }}"
  check_mode: false
  register: switch_cumulus_staged
"""

RETURN = r"""
staged:
  description: Number of commands staged.
  returned: success
  type: int
pending:
  description:
    - What applying the staged revision would change, as pending items (docs/conventions.md), one per leaf of
      C(nv config diff -o json), named by its object (C(interface swp1), C(bridge domain br_default)); empty when the
      staged revision is the applied one. NVUE's diff gives the model's value only, so C(before) is always null.
  returned: success
  type: list
  elements: dict
stdout:
  description: The output of C(nv config diff) for the staged revision.
  returned: success
  type: str
stdout_lines:
  description: RV(stdout) split into lines.
  returned: success
  type: list
  elements: str
released_members:
  description: The C(nv unset) commands that took model ports out of bonds the model does not own.
  returned: success
  type: list
  elements: str
aipod_resolved:
  description:
    - What an earlier run left pending and what was done about it (read by the C(aipod_progress) callback into the
      run report); empty when no revision was pending.
  returned: success
  type: list
  elements: dict
"""

import json
import shlex

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.ontap_ai.pod.plugins.module_utils.aipod_nvue.revision import pending, stray_bond_members

VERBS = ("set", "unset")
EMPTY_DIFFS = ("", "{}", "[]", "null")


def staged_argv(lines: list[str]) -> list[list[str]]:
    """The argument lists of the NVUE commands among `lines`; comment and blank lines are skipped.

    Raises ValueError naming the first line that is not `nv set` or `nv unset`.
    """
    commands = []
    for number, line in enumerate(lines, 1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        argv = shlex.split(stripped)
        if len(argv) < 3 or argv[0] != "nv" or argv[1] not in VERBS:
            raise ValueError(f"command {number} is not an NVUE set or unset command: {' '.join(argv[:3])!r}")
        commands.append(argv)
    return commands


def main() -> None:
    module = AnsibleModule(argument_spec={"commands": {"type": "list", "elements": "str", "required": True},
                                          "owned_ports": {"type": "list", "elements": "str", "default": []},
                                          "owned_bonds": {"type": "list", "elements": "str", "default": []}},
                           supports_check_mode=True)
    try:
        commands = staged_argv(module.params["commands"])
    except ValueError as error:
        module.fail_json(msg=str(error))
    # A revision left pending (a run stopped between staging and applying it) is dropped: it is said.
    rc, left, _err = module.run_command(["nv", "config", "diff"], expand_user_and_vars=False)
    resolved = []
    if rc == 0 and left.strip() not in EMPTY_DIFFS:
        resolved.append({"item": "pending NVUE revision",
                         "found": f"a pending revision that was never applied ({len(left.strip().splitlines())} line(s) of diff)",
                         "action": "dropped it (nv config detach) and staged the model's configuration again"})
    released = []
    if module.params["owned_ports"]:
        applied = read_json(module, ["nv", "config", "show", "-o", "json"])
        released = stray_bond_members(applied, module.params["owned_ports"], module.params["owned_bonds"])
    for argv in [["nv", "config", "detach"], *released, *commands]:
        # No shell, and no expansion of $VAR or ~ either: model text reaches nv as it was written.
        rc, _out, err = module.run_command(argv, expand_user_and_vars=False)
        if rc != 0:
            module.fail_json(msg=f"{' '.join(argv[:4])} ... exited {rc}: {err.strip()[:500]}", rc=rc)
    parts = read_json(module, ["nv", "config", "diff", "-o", "json"])
    diff = ""
    if parts:
        rc, diff, err = module.run_command(["nv", "config", "diff"], expand_user_and_vars=False)
        if rc != 0:
            module.fail_json(msg=f"nv config diff exited {rc}: {err.strip()[:500]}", rc=rc)
    module.exit_json(changed=False, staged=len(commands), pending=pending(parts), stdout=diff, stdout_lines=diff.splitlines(),
                     released_members=[" ".join(argv) for argv in released],
                     aipod_resolved=resolved)


def read_json(module: AnsibleModule, argv: list[str]):
    """The JSON an `nv ... -o json` command prints (an empty answer is nothing)."""
    rc, out, err = module.run_command(argv, expand_user_and_vars=False)
    if rc != 0:
        module.fail_json(msg=f"{' '.join(argv)} exited {rc}: {err.strip()[:500]}", rc=rc)
    try:
        return json.loads(out) if out.strip() not in EMPTY_DIFFS else None
    except ValueError:
        module.fail_json(msg=f"{' '.join(argv)} did not answer JSON: {out.strip()[:200]}")


if __name__ == "__main__":
    main()
