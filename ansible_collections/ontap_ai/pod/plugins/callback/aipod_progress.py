"""Callback: a line per pod layer as it finishes, a summary at the end, and the run report."""
from __future__ import annotations

DOCUMENTATION = r"""
---
name: aipod_progress
type: aggregate
short_description: Per-layer progress, an end-of-run summary and the pod's run report
description:
  - Prints one line per layer of the pod (validate, switches, storage, compute, kubernetes,
    trident, verify, acceptance, dataops) when it finishes, with its counts of ok, changed and failed tasks and its time.
  - At the end prints a summary (changes per layer, failures with host, task and first line of the
    message) and writes the run report (Markdown and JSON) under C(reports/<run>/), also reachable
    as C(reports/latest/); the last line says where it is.
  - A play's layer is its first tag among the layer names, else C(other).
  - Results of C(validate_site) (summary, sizing) and of tasks returning an C(aipod_report) key
    (for example the verification result), or setting an C(aipod_report) fact with C(set_fact), go
    into the report. Nothing else of a result is kept, so no secret reaches the report.
  - A report section that is a dict with C(title) and C(markdown) (for example the list of artefacts
    of C(playbooks/airgap_artifacts.yml)) is written into the Markdown report as it is.
  - The run lock's section (C(ontap_ai.pod.run_lock), which the playbooks run whether or not this callback is
    enabled) goes into the report, with the previous run when it did not reach its end.
  - Tasks returning an C(aipod_resolved) list, or setting it as a fact (what an earlier, stopped run
    left armed and what this run did about it), are gathered, for every host, into the report's
    C(resolved) section.
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
"""

import datetime
import json
import os
import re
import time

from ansible import context
from ansible.plugins.callback import CallbackBase

LAYERS = ("validate", "switches", "storage", "compute", "kubernetes", "trident", "verify", "acceptance", "dataops")


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

    def v2_playbook_on_play_start(self, play):
        self._enter(self._layer_of(play))
        if not self._inventory:
            self._inventory = ", ".join(os.path.relpath(str(source)) for source in context.CLIARGS.get("inventory") or ())

    def v2_runner_on_ok(self, result):
        if self._is_run_lock(result):
            # Bookkeeping of the run, not work of a layer: its record's end would show as a layer of its own.
            self._keep_run_lock(result)
            return
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

    @staticmethod
    def _is_run_lock(result) -> bool:
        return result._task.action.rsplit(".", 1)[-1] == "run_lock"

    def _keep_run_lock(self, result) -> None:
        """The run lock's report section, from the task that took (or refused) it."""
        if self._is_run_lock(result) and isinstance(result._result.get("run_lock"), dict):
            self._sections["run_lock"] = result._result["run_lock"]

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._count(result, "ok" if ignore_errors else "failed")
        self._keep_run_lock(result)
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
        if not self._is_run_lock(result):
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
                        f"(pid {previous.get('pid')}), did not reach its end."
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
