"""Callback: a line per pod layer as it finishes, a summary at the end, and the run report."""
from __future__ import annotations

DOCUMENTATION = r"""
---
name: aipod_progress
type: aggregate
short_description: Per-layer progress, an end-of-run summary and the pod's run report
description:
  - Prints one line per layer of the pod (validate, switches, storage, compute, kubernetes,
    trident, verify) when it finishes, with its counts of ok, changed and failed tasks and its time.
  - At the end prints a summary (changes per layer, failures with host, task and first line of the
    message) and writes the run report (Markdown and JSON) under C(reports/<run>/), also reachable
    as C(reports/latest/); the last line says where it is.
  - A play's layer is its first tag among the layer names, else C(other).
  - Results of C(validate_site) (summary, sizing) and of tasks returning an C(aipod_report) key
    (for example the verification result), or setting an C(aipod_report) fact with C(set_fact), go
    into the report. Nothing else of a result is kept, so no secret reaches the report.
  - Before the first play it reads the inventory's files as the validator does and names any file
    that is not YAML. A file over the validator's loading budget (for example nested YAML aliases,
    a "billion laughs") ends the run there, with exit status 2, before Ansible expands it.
  - A report section that is a dict with C(title) and C(markdown) (for example the list of artefacts
    of C(playbooks/airgap_artifacts.yml)) is written into the Markdown report as it is.
  - Holds the site's run lock (C(docs/interrupted-runs.md)) from before the first play to the end
    of a run that changes the site. A second such run on the same site (named by C(pod.name)) is
    refused at once, exit status 2, naming the run that holds it. Processes a killed run left
    holding the lock are waited for, then named. Read-only playbooks and check mode take no lock
    and warn when a changing run holds it.
  - Tasks returning an C(aipod_resolved) list, or setting it as a fact (what an earlier, stopped run
    left armed and what this run did about it), are gathered, for every host, into the report's
    C(resolved) section.
  - When the previous run did not finish, sets C(AIPOD_PREVIOUS_RUN_INTERRUPTED=true) in the run's
    environment, for the plays that wait for what it may have cut off.
  - A run stopped after its compute layer started may have left a DGX's storage-network rollback
    armed, which fires by itself. Until a run of C(site.yml) or C(compute.yml) on every DGX (no
    C(--limit), the C(compute) tag) succeeds, every other changing run is refused before its first
    play, exit status 2, naming the stopped run.
version_added: "1.0.0"
author: ONTAP AI pod bundle contributors (!UNKNOWN)
requirements:
  - enable it in ansible.cfg (callbacks_enabled = aipod_progress)
options:
  report_root:
    description: Directory under which each run's report directory is created.
    default: reports
    type: path
    env:
      - name: AIPOD_REPORT_ROOT
    ini:
      - section: aipod_progress
        key: report_root
  run_lock_dir:
    description:
      - Directory of the sites' run locks. Every user and control node that runs a site must use
        the same one for the lock to keep their runs apart (a shared, group-writable directory).
    default: ~/.ansible/ontap_ai_pod/locks
    type: path
    env:
      - name: AIPOD_RUN_LOCK_DIR
    ini:
      - section: aipod_progress
        key: run_lock_dir
  run_lock_wait:
    description: Seconds to wait for processes a killed run left holding the lock before refusing.
    default: 120
    type: int
    env:
      - name: AIPOD_RUN_LOCK_WAIT
    ini:
      - section: aipod_progress
        key: run_lock_wait
"""

import datetime
import json
import os
import re
import sys
import time

from ansible import context
from ansible.plugins.callback import CallbackBase

LAYERS = ("validate", "switches", "storage", "compute", "kubernetes", "trident", "verify", "acceptance")
# Exit status of a run the callback ends before its first play (a site model file over the
# loader's budget); Ansible's own for a failed host is 2.
REFUSED_EXIT_CODE = 2
# The playbooks whose compute layer resolves what a stopped run armed on the DGX (docs/interrupted-runs.md).
RESOLVING_PLAYBOOKS = frozenset({"site.yml", "compute.yml"})


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "aggregate"
    CALLBACK_NAME = "ontap_ai.pod.aipod_progress"
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self):
        super().__init__()
        self._layers: dict[str, dict] = {}
        self._order: list[str] = []
        self._current: str | None = None
        self._failures: list[dict] = []
        self._sections: dict[str, object] = {}
        self._started = time.time()
        self._playbook = ""
        self._inventory = ""
        self._run_dir = None
        self._stint_results = 0
        self._run_lock = None
        self._resolved: list[dict] = []

    # ------------------------------------------------------------------ bookkeeping
    def _layer_of(self, play) -> str:
        tags = list(getattr(play, "tags", []) or [])
        for tag in tags:
            if tag in LAYERS:
                return tag
        name = (play.get_name() or "").lower()
        for layer in LAYERS:
            if layer in name:
                return layer
        return "other"

    def _enter(self, layer: str) -> None:
        if layer == self._current:
            return  # consecutive plays of one layer are one step of the run
        if self._current is not None:
            self._report_layer(self._current)
        self._current = layer
        self._stint_results = 0
        if layer not in self._layers:
            self._layers[layer] = {"ok": 0, "changed": 0, "failed": 0, "unreachable": 0, "skipped": 0,
                                   "hosts": set(), "seconds": 0.0, "since": time.time()}
            self._order.append(layer)
        else:
            self._layers[layer]["since"] = time.time()

    def _count(self, result, kind: str) -> None:
        if self._current is None:
            return
        layer = self._layers[self._current]
        layer[kind] += 1
        if kind != "skipped":
            self._stint_results += 1
        layer["hosts"].add(result._host.get_name())
        if kind == "ok" and result._result.get("changed"):
            layer["changed"] += 1

    def _report_layer(self, name: str) -> None:
        layer = self._layers[name]
        layer["seconds"] += time.time() - layer["since"]
        layer["since"] = time.time()
        if not self._stint_results:
            return  # nothing ran (a layer not selected by --tags, or validation already done this run)
        status = "FAILED" if layer["failed"] or layer["unreachable"] else "done"
        self._display.display(
            f"==> layer {name}: {status}: {layer['changed']} changed, {layer['ok']} ok, {layer['failed']} failed, "
            f"{layer['unreachable']} unreachable, {layer['skipped']} skipped on {len(layer['hosts'])} host(s) "
            f"in {layer['seconds']:.1f} s",
            color="bright red" if status == "FAILED" else "bright blue",
        )

    # ------------------------------------------------------------------ events
    def v2_playbook_on_start(self, playbook):
        self._playbook = os.path.basename(playbook._file_name)
        root = self.get_option("report_root")
        if not os.path.isabs(root):
            root = os.path.join(os.getcwd(), root)
        stamp = datetime.datetime.now(datetime.UTC).strftime("%Y%m%dT%H%M%SZ")
        self._run_dir = os.path.join(root, f"{stamp}-{os.path.splitext(self._playbook)[0]}")
        os.makedirs(self._run_dir, exist_ok=True)
        latest = os.path.join(root, "latest")
        try:
            if os.path.islink(latest) or os.path.exists(latest):
                os.remove(latest)
            os.symlink(os.path.basename(self._run_dir), latest)
        except OSError:
            pass
        refused, site_name = self._report_unreadable_inventory()
        if refused:
            self._stop([str(finding) for finding in refused], "read the site model",
                       f"the site model holds {len(refused)} file(s) that cannot be read safely or decrypted")
        self._lock_site(site_name)

    def _stop(self, messages: list, task: str, why: str) -> None:
        """End the run before any play: a file over the loader's budget would be expanded (or, nested
        deep enough, crash Ansible's own YAML loader) by whatever reads it next; another run holds
        the site."""
        self._enter("validate")
        for message in messages:
            self._failures.append({"layer": "validate", "host": "localhost", "task": task, "message": message})
        elapsed = time.time() - self._started
        path = self._write_report(False, elapsed)
        self._display.display(f"==> {self._playbook}: REFUSED in {elapsed:.1f} s: {why}; nothing was run", color="bright red")
        if path:
            self._display.display(f"==> run report: {os.path.relpath(path)}", color="bright red")
        sys.exit(REFUSED_EXIT_CODE)

    def _lock_site(self, site_name: str) -> None:
        """Take the site's run lock for a run that changes it; a read-only run only looks."""
        if self._run_lock is not None or not site_name:
            return
        from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_run import lock as run_lock

        self._run_lock = run_lock.RunLock(self.get_option("run_lock_dir"), site_name)
        if self._playbook in run_lock.READ_ONLY_PLAYBOOKS or context.CLIARGS.get("check"):
            try:
                holder = self._run_lock.held_by_other()
            except OSError:
                holder = None
            if holder is not None:
                self._display.warning(f"site '{site_name}' is being changed by {holder.describe()}: what this run reads "
                                      "may be mid-change")
            self._run_lock = None
            return
        me = run_lock.this_run(self._playbook, sys.argv)
        try:
            outcome = self._run_lock.take(me, self.get_option("run_lock_wait"),
                                          progress=lambda line: self._display.display(f"==> run lock: {line}", color="yellow"))
        except OSError as error:
            # Without the lock a second run could change the site at the same time: refuse.
            message = (f"the run lock of site '{site_name}' cannot be taken in {self._run_lock.directory}: {error.strerror or error}. "
                       "Set AIPOD_RUN_LOCK_DIR (or run_lock_dir in the [aipod_progress] section of ansible.cfg) to a directory "
                       "this user can write.")
            self._display.error(f"run lock: {message}", wrap_text=False)
            self._stop([message], "take the site's run lock", "the site's run lock cannot be taken")
        self._sections["run_lock"] = outcome.report()
        if outcome.nested_in is not None:
            self._display.display(f"==> run lock: started by {outcome.nested_in.describe()}, which holds the site's lock",
                                  color="yellow")
            self._run_lock = None
            return
        if not outcome.taken:
            self._display.error(f"run lock: {outcome.refusal}", wrap_text=False)
            self._stop([outcome.refusal], "take the site's run lock", f"the site '{site_name}' is held by another run")
        if outcome.owes and not self._resolves_armed():
            message = (f"the run {outcome.owes} stopped after its compute layer could arm a storage-network rollback on the "
                       "DGX, and no run has resolved that since: the rollback fires by itself and would take the storage "
                       "network away after this run reported success. Run compute.yml (or site.yml) first, on every DGX: "
                       "no --limit, and --tags (if any) with compute. It keeps the change where the management path "
                       "answers and lets the rollback restore the previous network where it does not. This run changed nothing.")
            self._display.error(f"run lock: {message}", wrap_text=False)
            self._run_lock.finish("refused")
            self._stop([message], "take the site's run lock", "a stopped run's storage-network rollback may still be armed")
        if outcome.previous_interrupted or outcome.owes:
            # Read by the plays (lookup env) in this process and the workers it forks from now on.
            os.environ["AIPOD_PREVIOUS_RUN_INTERRUPTED"] = "true"
            self._display.warning(f"the previous run on site '{site_name}', {outcome.previous.describe()}, did not finish "
                                  "(killed, or its control node stopped). This run resolves what it left armed before it "
                                  "changes anything (docs/interrupted-runs.md).")

    def _resolves_armed(self) -> bool:
        """Whether this run resolves a storage-network rollback a stopped run left armed: it runs the
        compute layer (site.yml, compute.yml) on every DGX, with no --limit and the compute tag."""
        tags = set(context.CLIARGS.get("tags") or ["all"])
        return (self._playbook in RESOLVING_PLAYBOOKS and not context.CLIARGS.get("subset")
                and bool(tags & {"all", "compute"}) and "compute" not in set(context.CLIARGS.get("skip_tags") or []))

    def _report_unreadable_inventory(self) -> tuple[list, str]:
        """Ansible stops on a vars file that is not YAML without saying where; say it first, located.

        A file over the loader's budget (an alias bomb) is named here too. Loading is bounded
        (aipod_site.yamlload.Budget) and reports problems as findings; only a file-system error or
        a malformed value is caught here. MemoryError and KeyboardInterrupt are never caught.
        """
        refused: list = []
        site_name = ""
        try:
            from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_run.vault import run_decryptor
            from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import load_site
        except ImportError:
            return refused, site_name

        for source in context.CLIARGS.get("inventory") or ():
            # A directory, or its hosts file (-i inventories/<site>/hosts.yml); not "host1,host2,".
            if not os.path.exists(str(source)):
                continue
            try:
                site = load_site(str(source), decrypt=run_decryptor())
            except (OSError, ValueError, TypeError, RecursionError) as error:  # the validation play reports the model
                self._display.warning(f"site model: {source} could not be read ahead of the run ({type(error).__name__})")
                continue
            for finding in site.findings:
                if finding.rule in ("yaml", "yaml-limit", "vault") and finding.severity == "error":
                    self._display.error(f"site model: {finding}", wrap_text=False)
                # Ansible cannot load a vault file it cannot decrypt either, and would stop without naming it.
                # An inline value it decrypts only when used: the validation play refuses that one.
                if finding.rule == "yaml-limit" or (finding.rule == "vault" and not finding.path):
                    refused.append(finding)
            pod = site.model.get("pod")
            name = pod.get("name") if isinstance(pod, dict) else None
            if not site_name:
                site_name = name if isinstance(name, str) and name else os.path.basename(site.inventory_dir.rstrip("/"))
        return refused, site_name

    def v2_playbook_on_play_start(self, play):
        self._enter(self._layer_of(play))
        if not self._inventory:
            self._inventory = ", ".join(os.path.relpath(str(source)) for source in context.CLIARGS.get("inventory") or ())

    def v2_playbook_on_task_start(self, task, is_conditional):
        # From the compute layer's first task on, a kill may leave a DGX's rollback timer armed.
        if self._current == "compute" and self._run_lock is not None:
            self._run_lock.mark_may_arm()

    def v2_runner_on_ok(self, result):
        self._count(result, "ok")
        data = result._result
        action = result._task.action
        if action in ("validate_site", "ansible.legacy.validate_site"):
            self._sections["validation"] = {"summary": data.get("summary"), "sizing": data.get("sizing"),
                                            "warnings": [w.get("message") for w in data.get("site_warnings", [])]}
        resolved = data.get("aipod_resolved") or (data.get("ansible_facts") or {}).get("aipod_resolved")
        if isinstance(resolved, list):
            host = result._host.get_name()
            self._resolved += [{"host": host, **entry} for entry in resolved if isinstance(entry, dict)]
        # A task hands a section to the report as a result key or as a fact (set_fact shows nothing).
        for report in (data.get("aipod_report"), (data.get("ansible_facts") or {}).get("aipod_report")):
            if isinstance(report, dict):
                for key, value in report.items():
                    self._sections[key] = value

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._count(result, "ok" if ignore_errors else "failed")
        if not ignore_errors:
            message = str(result._result.get("msg") or result._result.get("stderr") or "failed").strip()
            self._failures.append({"layer": self._current, "host": result._host.get_name(),
                                   "task": result._task.get_name(), "message": message.splitlines()[0][:300] if message else ""})

    def v2_runner_on_unreachable(self, result):
        self._count(result, "unreachable")
        message = str(result._result.get("msg") or "unreachable").strip()
        self._failures.append({"layer": self._current, "host": result._host.get_name(), "task": result._task.get_name(),
                               "message": "UNREACHABLE: " + message.splitlines()[0][:300]})

    def v2_runner_on_skipped(self, result):
        self._count(result, "skipped")

    def v2_playbook_on_stats(self, stats):
        if self._current is not None:
            self._report_layer(self._current)
        elapsed = time.time() - self._started
        ok = not self._failures
        lines = ["", f"==> {self._playbook}: {'SUCCESS' if ok else 'FAILED'} in {elapsed:.1f} s"]
        for name in self._order:
            layer = self._layers[name]
            if not (layer["ok"] or layer["failed"] or layer["unreachable"]):
                continue
            lines.append(f"    {name:<11} {layer['changed']:>4} changed {layer['ok']:>5} ok {layer['failed']:>3} failed "
                         f"{layer['unreachable']:>3} unreachable  {layer['seconds']:>7.1f} s")
        if self._failures:
            lines.append("    failures:")
            for failure in self._failures:
                lines.append(f"      [{failure['layer']}] {failure['host']}: {failure['task']}: {failure['message']}")
        if self._resolved:
            lines.append("    found from an earlier run:")
            lines += [f"      {entry['host']}: {entry.get('item')}: {entry.get('found')}; {entry.get('action')}"
                      for entry in self._resolved]
        path = self._write_report(ok, elapsed)
        if path:
            lines.append(f"==> run report: {os.path.relpath(path)}")
        if self._run_lock is not None:
            # A successful run of the compute layer on every DGX resolved what a stopped run armed there.
            compute = self._layers.get("compute") or {}
            self._run_lock.finish("ok" if ok else "failed", resolved=ok and self._resolves_armed() and bool(compute.get("hosts")))
        for line in lines:
            self._display.display(line, color="bright green" if ok else "bright red")

    # ------------------------------------------------------------------ report
    def _write_report(self, ok: bool, elapsed: float) -> str | None:
        if not self._run_dir:
            return None
        layers = {name: {k: (sorted(v) if isinstance(v, set) else v) for k, v in self._layers[name].items() if k != "since"}
                  for name in self._order}
        sections = dict(self._sections)
        # A section's picture goes beside the report as <section>.svg; the JSON names the file.
        for key, section in self._sections.items():
            if isinstance(section, dict) and isinstance(section.get("svg"), str):
                picture = f"{re.sub(r'[^A-Za-z0-9_-]', '_', key)}.svg"
                with open(os.path.join(self._run_dir, picture), "w", encoding="utf-8") as handle:
                    handle.write(section["svg"])
                sections[key] = {**{k: v for k, v in section.items() if k != "svg"}, "svg_file": picture}
        data = {"playbook": self._playbook, "inventory": self._inventory, "ok": ok, "seconds": round(elapsed, 1),
                "layers": layers, "failures": self._failures, "resolved": self._resolved, **sections}
        with open(os.path.join(self._run_dir, "report.json"), "w", encoding="utf-8") as handle:
            json.dump(data, handle, indent=2, default=str)
        markdown = self._markdown(data)
        path = os.path.join(self._run_dir, "report.md")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(markdown)
        return path

    def _markdown(self, data: dict) -> str:
        out = [f"# Pod run report: {data['playbook']}", "",
               f"- result: **{'success' if data['ok'] else 'FAILED'}** in {data['seconds']} s",
               f"- inventory: `{data['inventory']}`",
               f"- finished: {datetime.datetime.now(datetime.UTC).isoformat(timespec='seconds')}", ""]
        if os.path.exists(os.path.join(self._run_dir, "topology.svg")):
            out += ["![pod topology](topology.svg)", ""]
        validation = data.get("validation") or {}
        if validation.get("summary"):
            summary = validation["summary"]
            out += ["## What the site describes", "", "| item | count |", "|---|---:|"]
            out += [f"| {key.replace('_', ' ')} | {value} |" for key, value in summary.items()]
            out.append("")
        sizing = validation.get("sizing") or {}
        if sizing.get("ratio") is not None:
            out += ["## Sizing", "",
                    f"{sizing['gpus']} GPUs x {sizing['gpu_ingest_mb_s']} MB/s = {sizing['demand_mb_s']} MB/s demand; "
                    f"storage supply {sizing['supply_mb_s']} MB/s (ports {sizing['line_rate_mb_s']} MB/s, platform "
                    f"{sizing['platform_limit_mb_s']} MB/s); **ratio {sizing['ratio']}**", ""]
        out += ["## Changes per layer", "", "| layer | changed | ok | failed | unreachable | skipped | hosts | seconds |",
                "|---|---:|---:|---:|---:|---:|---:|---:|"]
        for name, layer in data["layers"].items():
            if not (layer["ok"] or layer["failed"] or layer["unreachable"]):
                continue
            out.append(f"| {name} | {layer['changed']} | {layer['ok']} | {layer['failed']} | {layer['unreachable']} | "
                       f"{layer['skipped']} | {len(layer['hosts'])} | {layer['seconds']:.1f} |")
        out.append("")
        verification = data.get("verification")
        if isinstance(verification, dict) and "exit_code" in verification:
            verdict = {0: "pass", 1: "FAIL", 2: "incomplete (some checks could not be made)"}.get(verification["exit_code"], "?")
            counts = verification.get("counts", {})
            out += ["## Verification", "", f"Result: **{verdict}** (exit code {verification['exit_code']}); "
                    + ", ".join(f"{n} {s.replace('_', ' ')}" for s, n in counts.items()), "",
                    "| layer | host | check | result | detail |", "|---|---|---|---|---|"]
            # Failures and gaps first, then the rest, so the table's top is what needs attention.
            order = {"fail": 0, "not_checked": 1, "not_applicable": 2, "pass": 3}
            for check in sorted(verification.get("checks", []), key=lambda c: order.get(c.get("status"), 4)):
                out.append(f"| {check.get('layer')} | {check.get('host')} | {check.get('name')} | {check.get('status')} | "
                           f"{str(check.get('detail', '')).replace('|', '/')} |")
            out.append("")
        for section in data.values():
            if isinstance(section, dict) and isinstance(section.get("title"), str) and isinstance(section.get("markdown"), str):
                out += [f"## {section['title']}", ""]
                if isinstance(section.get("svg_file"), str):
                    out += [f"![{section['title']}]({section['svg_file']})", ""]
                out += [section["markdown"], ""]
        run_lock = data.get("run_lock") or {}
        previous = run_lock.get("previous_run") or {}
        if previous.get("interrupted") or data["resolved"]:
            out += ["## Found from an earlier run", ""]
            if previous.get("interrupted"):
                out += [f"- The previous run, {previous.get('playbook')} by {previous.get('user')}@{previous.get('host')} "
                        f"(pid {previous.get('pid')}), did not finish."
                        + (f" This run waited {run_lock['waited_for_survivors_seconds']} s for processes it left."
                           if run_lock.get("waited_for_survivors_seconds") else ""), ""]
            if data["resolved"]:
                out += ["| host | item | found | done |", "|---|---|---|---|"]
                out += [f"| {entry['host']} | {entry.get('item')} | {str(entry.get('found')).replace('|', '/')} | "
                        f"{str(entry.get('action')).replace('|', '/')} |" for entry in data["resolved"]]
            out.append("")
        if data["failures"]:
            out += ["## Failures", ""] + [f"- [{f['layer']}] `{f['host']}` {f['task']}: {f['message']}" for f in data["failures"]]
            out.append("")
        return "\n".join(out)
