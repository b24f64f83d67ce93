"""Action plugin of ontap_ai.pod.nxos_lines: runs the module over the task's network_cli connection,
as ansible.netcommon runs its own cli_config."""
from __future__ import annotations

from ansible_collections.ansible.netcommon.plugins.action.network import ActionModule as ActionNetworkModule


class ActionModule(ActionNetworkModule):
    def run(self, tmp=None, task_vars=None):
        del tmp  # unused since ansible-core 2.x, kept for the signature
        if self._play_context.connection.split(".")[-1] != "network_cli":
            return {"failed": True,
                    "msg": f"ontap_ai.pod.nxos_lines runs over ansible.netcommon.network_cli, not {self._play_context.connection}"}
        return super().run(task_vars=task_vars)
