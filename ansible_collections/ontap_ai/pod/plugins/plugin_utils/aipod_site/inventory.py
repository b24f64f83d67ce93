"""Read an inventory directory into the site model, remembering where every value was written.

The site model is literal data in a YAML inventory:

* ``hosts.yml``: groups ``switches``, ``ontap``, ``dgx``, ``servers`` name the kind of each host;
  ``kube_control_plane`` and ``kube_node`` say which hosts form the Kubernetes cluster.
* ``group_vars/all/*.yml``: the pod-wide model, one top-level key per topic (GLOBAL_KEYS).
* ``host_vars/<host>.yml``: the model of one host (HOST_KEYS), by kind.

Beside the model, vars files may hold ``ansible_*`` connection settings, ``vault_*`` secrets and
overrides of role variables. Anything else is an unknown key. The model is read from the files
(not from Ansible's merged variables) so that every error can name its file and line, and so
that the check needs no Ansible run at all.
"""
from __future__ import annotations

import dataclasses
import difflib
import os
import re
import stat
from collections.abc import Iterable
from typing import Any

import yaml

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.characters import shown_key
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.findings import Finding, Location
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.templating import SECRET_NAME, TEMPLATE_MARK
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.yamlload import (
    Budget,
    Decryptor,
    VaultValue,
    YamlProblem,
    YamlRefused,
    envelope_vault_id,
    is_vault_file,
    load_with_lines,
)

GLOBAL_KEYS = ("pod", "networks", "ontap", "compute", "kubernetes", "trident", "datasets", "gpu", "monitoring")
REQUIRED_GLOBAL_KEYS = ("pod", "networks", "ontap", "kubernetes", "trident")
HOST_KEYS = {"switch": "switches", "dgx": "dgx", "server": "servers"}
KIND_GROUPS = ("switches", "ontap", "dgx", "servers")
KUBE_GROUPS = ("kube_control_plane", "kube_node")
VARS_SUFFIXES = (".yml", ".yaml", ".json", "")
VARS_DIRS = ("group_vars", "host_vars")
# The passwords Ansible takes as connection settings (their values are secrets too).
CONNECTION_PASSWORDS = frozenset({"ansible_password", "ansible_ssh_password", "ansible_ssh_pass", "ansible_become_password",
                                  "ansible_become_pass", "ansible_httpapi_password", "ansible_httpapi_pass"})


@dataclasses.dataclass
class VarsFile:
    """One vars file of the inventory (group_vars or host_vars)."""

    path: str  # as shown to the user
    scope: str  # "group" or "host"
    owner: str  # group or host name
    data: dict | None
    lines: dict
    encrypted: bool = False

    def locate(self, inner_path: tuple) -> Location:
        if not self.lines:  # variables of an exported inventory: no file, no lines
            return Location(self.path, None)
        path = tuple(inner_path)
        while path and path not in self.lines:
            path = path[:-1]
        return Location(self.path, self.lines.get(path, 1 if not path else None))


@dataclasses.dataclass
class Site:
    """The site model of one inventory plus what is needed to point at its source."""

    inventory_dir: str
    hosts_file: str
    model: dict[str, Any]
    groups: dict[str, list[str]]
    host_groups: dict[str, set[str]]
    files: list[VarsFile]
    origins: dict[tuple, tuple[VarsFile, tuple]]
    inventory_lines: dict[tuple, int]
    host_paths: dict[str, tuple]
    group_paths: dict[str, tuple]
    secrets: dict[str, Location]
    plaintext_secrets: dict[str, Location]
    role_overrides: dict[str, list[tuple[VarsFile, tuple]]]
    findings: list[Finding]
    # "files": an inventory directory read file by file; "exported": the JSON document of
    # ansible-inventory --list --export or of an AWX inventory script (exported.py).
    source_kind: str = "files"
    # Where the model's relative file paths (ontap.ca_file, kubernetes.existing.kubeconfig) resolve:
    # aipod_site_files_dir / AIPOD_SITE_FILES_DIR when given, else the inventory directory.
    files_dir: str | None = None
    # Role variable -> its spec in the role's meta/argument_specs.yml, to type the overrides.
    role_specs: dict[str, dict] = dataclasses.field(default_factory=dict)

    @property
    def name(self) -> str:
        """The site's name: the model's pod.name, else the inventory directory's name."""
        pod = self.model.get("pod")
        name = pod.get("name") if isinstance(pod, dict) else None
        return name if isinstance(name, str) and name else os.path.basename(self.inventory_dir.rstrip("/"))

    def site_file(self, path: str) -> str:
        """The path of a file the model names, resolved against the site's files directory."""
        return resolve_site_file(path, self.files_dir, self.inventory_dir)

    def site_file_outside(self, path: str) -> str | None:
        """Why a file the model names lies outside the site's files directory, or None (site_file_outside())."""
        return site_file_outside(path, self.files_dir, self.inventory_dir)

    def locate(self, path: Iterable[Any]) -> Location:
        """The file and line where the value at a model path was written (or its nearest parent)."""
        path = tuple(path)
        if len(path) >= 2 and path[0] == "hosts":
            host = path[1]
            if len(path) >= 3 and (path[:3]) in self.origins:
                vars_file, inner = self.origins[path[:3]]
                return vars_file.locate(inner + path[3:])
            if self.source_kind == "exported":
                return Location(f"{self.hosts_file} (host {host})")
            return self._inventory_location(self.host_paths.get(host, ()))
        if len(path) >= 2 and path[0] == "groups":
            return self._inventory_location(self.group_paths.get(path[1], ()))
        if path and path[:1] in self.origins:
            vars_file, inner = self.origins[path[:1]]
            return vars_file.locate(inner + path[1:])
        if path and path[0] in GLOBAL_KEYS:
            if self.source_kind == "exported":
                return Location(f"{self.hosts_file} (group all)")
            return Location(display_path(os.path.join(self.inventory_dir, "group_vars", "all")), None)
        return Location(self.hosts_file, None)

    def _inventory_location(self, inner: tuple) -> Location:
        path = tuple(inner)
        while path and path not in self.inventory_lines:
            path = path[:-1]
        return Location(self.hosts_file, self.inventory_lines.get(path))


def display_path(path: str) -> str:
    """A path relative to the working directory when below it (what a user typed), else absolute."""
    absolute = os.path.abspath(path)
    cwd = os.getcwd()
    if absolute == cwd or absolute.startswith(cwd + os.sep):
        return os.path.relpath(absolute, cwd)
    return absolute


def find_hosts_file(inventory: str) -> tuple[str, str]:
    """(inventory_dir, hosts_file) for an inventory given as its directory or its hosts file."""
    if os.path.isdir(inventory):
        for name in ("hosts.yml", "hosts.yaml", "inventory.yml", "inventory.yaml"):
            candidate = os.path.join(inventory, name)
            if os.path.isfile(candidate):
                return inventory, candidate
        return inventory, os.path.join(inventory, "hosts.yml")
    return os.path.dirname(os.path.abspath(inventory)) or ".", inventory


def load_site(
    inventory: str,
    decrypt: Decryptor | None = None,
    role_options: dict[str, set[str]] | None = None,
) -> Site:
    """Load an inventory into a Site. Problems found while loading are in Site.findings."""
    inventory_dir, hosts_file = find_hosts_file(inventory)
    findings: list[Finding] = []
    hosts_display = display_path(hosts_file)
    budget = Budget()
    groups, host_groups, inline_vars, inventory_lines, host_paths, group_paths = _read_hosts_file(
        hosts_file, hosts_display, findings, budget
    )
    files = _read_vars_files(inventory_dir, decrypt, findings, budget)
    site = Site(
        inventory_dir=inventory_dir,
        hosts_file=hosts_display,
        model={"hosts": {}},
        groups=groups,
        host_groups=host_groups,
        files=files,
        origins={},
        inventory_lines=inventory_lines,
        host_paths=host_paths,
        group_paths=group_paths,
        secrets={},
        plaintext_secrets={},
        role_overrides={},
        findings=findings,
    )
    for host in host_groups:
        site.model["hosts"][host] = {"groups": sorted(host_groups[host] - {"all"})}
    for host, occurrences in inline_vars.items():
        for variables, path in occurrences:
            for key in variables:
                if not str(key).startswith("ansible_"):
                    findings.append(
                        _finding(
                            "inventory-layout",
                            site._inventory_location(path + (key,)),
                            ("hosts", host, key),
                            f"'{key}' is set in the inventory file; only ansible_* connection settings belong there",
                            f"move it to host_vars/{host}.yml",
                        )
                    )
    for vars_file in files:
        _collect_keys(site, vars_file, role_options)
    for host, occurrences in sorted(inline_vars.items()):
        inline, conflicts = _inline_vars_file(site, host, occurrences)
        findings.extend(conflicts)
        files.append(inline)
    if decrypt is not None:
        findings.extend(undecryptable_values(files, decrypt))
    for key in REQUIRED_GLOBAL_KEYS:
        if key not in site.model:
            findings.append(
                _finding(
                    "required-key",
                    Location(display_path(os.path.join(inventory_dir, "group_vars", "all")), None),
                    (key,),
                    f"the site model has no '{key}'",
                    f"add group_vars/all/{key}.yml with a top-level '{key}:' (see inventories/sample)",
                )
            )
    _check_templating(site)
    return site


def _finding(rule: str, location: Location, path: tuple, message: str, hint: str = "") -> Finding:
    return Finding(rule=rule, severity="error", path=path, message=message, hint=hint, location=location)


def _yaml_finding(display: str, path: tuple, problem: YamlProblem) -> Finding:
    """A file that is not YAML (rule yaml), or that is and exceeds the loading budget (rule yaml-limit)."""
    if isinstance(problem, YamlRefused):
        return _finding("yaml-limit", Location(display, problem.line), path, str(problem), problem.hint)
    return _finding("yaml", Location(display, problem.line), path, f"not valid YAML: {problem}", "fix the YAML syntax at this line")


def _integer_form_finding(display: str, path: tuple, line: int, written: str) -> Finding | None:
    """An integer not written in decimal: YAML 1.1 (Ansible's) reads '02000' as octal 1024. None for a
    secret, which is refused as a number whatever its form, without quoting it (secret_type_problem)."""
    if path and is_secret_name(str(path[0])):
        return None
    try:
        read_as = int(yaml.safe_load(written))
    except (ValueError, TypeError, yaml.YAMLError):
        read_as = None
    meaning = f"which YAML reads as {read_as}" if read_as is not None else "which YAML reads as a number"
    # In the site model an integer is a count, an id or a size; a role variable of the site's own
    # (a file mode written 0644, say) may mean the octal, so there it is only a warning.
    in_model = bool(path) and (path[0] in GLOBAL_KEYS or path[0] in HOST_KEYS)
    return Finding(rule="integer-form", severity="error" if in_model else "warning", path=path,
                   message=f"'{written}' is an integer written in another form than decimal, {meaning}",
                   hint="write it in plain decimal digits (or quote it if it is text)", location=Location(display, line))


def is_secret_name(name: str) -> bool:
    """A variable that holds a secret: a vault_* variable or an Ansible connection password."""
    return bool(SECRET_NAME.match(name)) or name in CONNECTION_PASSWORDS


def secret_type_problem(value: Any) -> str | None:
    """Why a secret's decrypted value is not a password's text, never naming the value."""
    if isinstance(value, VaultValue):
        return None  # an inline !vault value decrypts to text
    if isinstance(value, int) and not isinstance(value, bool):
        return "is written as a number (not shown), which YAML reads as an integer, not as the password's text"
    if isinstance(value, bool) or not isinstance(value, str):
        return f"is a {type(value).__name__ if value is not None else 'null'}, not text"
    if not value.strip():
        return "is empty"
    return None


def _read_text(path: str, budget: Budget, inside: str | None = None) -> str:
    """A file's text; one over the budget's size is refused before it is read.

    Only regular files are read (a FIFO would block, /dev/zero never ends), and with `inside`, only
    files whose real path is in that directory or is another inventory's vars file (below a
    group_vars/ or host_vars/ directory, as sites and test scenarios share model files): the
    validator never reads, and so never reports on, any other file the inventory merely links to (a
    vars file linked to /etc/shadow).
    """
    if inside is not None:
        real, root = os.path.realpath(path), os.path.realpath(inside)
        shared = any(part in VARS_DIRS for part in real.split(os.sep)[:-1])
        if os.path.commonpath([real, root]) != root and not shared:
            raise YamlRefused(f"refused: a link to {real}, outside the inventory and no inventory's vars file; the "
                              "validator reads only the inventory's files", None,
                              "copy the file into the inventory (or make the link point inside it)")
    mode = os.stat(path).st_mode
    if not stat.S_ISREG(mode):
        kind = ("a FIFO" if stat.S_ISFIFO(mode) else "a character device" if stat.S_ISCHR(mode)
                else "a block device" if stat.S_ISBLK(mode) else "a socket" if stat.S_ISSOCK(mode) else "not a file")
        raise YamlRefused(f"refused: {kind}, not a regular file; only regular files are read", None,
                          "replace it with a regular YAML file, or remove it")
    with open(path, encoding="utf-8") as handle:
        budget.check_size(os.fstat(handle.fileno()).st_size)
        return handle.read(budget.file_bytes + 1)


def _read_hosts_file(hosts_file: str, display: str, findings: list[Finding], budget: Budget):
    groups: dict[str, set[str]] = {"all": set()}
    children: dict[str, set[str]] = {}
    inline_vars: dict[str, list[tuple[dict, tuple]]] = {}
    host_paths: dict[str, tuple] = {}
    group_paths: dict[str, tuple] = {}
    lines: dict[tuple, int] = {}
    try:
        text = _read_text(hosts_file, budget)
    except (OSError, UnicodeDecodeError) as exc:
        findings.append(
            _finding("inventory-layout", Location(display), ("groups",),
                     f"cannot read the inventory: {getattr(exc, 'strerror', None) or type(exc).__name__}",
                     "give the inventory directory holding hosts.yml (YAML inventory format)")
        )
        return {"all": []}, {}, {}, lines, host_paths, group_paths
    except YamlProblem as exc:
        findings.append(_yaml_finding(display, ("groups",), exc))
        return {"all": []}, {}, {}, lines, host_paths, group_paths
    try:
        data, lines, duplicates = load_with_lines(text, budget)
    except YamlProblem as exc:
        findings.append(_yaml_finding(display, ("groups",), exc))
        return {"all": []}, {}, {}, {}, host_paths, group_paths
    for path, first, second in duplicates:
        findings.append(_finding("duplicate-key", Location(display, second), ("groups",) + tuple(path[-1:]),
                                 f"'{path[-1]}' is written twice in one mapping (first at line {first}); YAML keeps only the last",
                                 "remove or merge one of them"))
    if not isinstance(data, dict):
        findings.append(_finding("inventory-layout", Location(display, 1), ("groups",),
                                 "the inventory is not a YAML mapping of groups",
                                 "write it in Ansible's YAML inventory format (all: children: ...)"))
        return {"all": []}, {}, {}, lines, host_paths, group_paths

    def walk(name: str, body: Any, path: tuple) -> None:
        group_paths.setdefault(name, path)
        groups.setdefault(name, set())
        if body is None:
            return
        if not isinstance(body, dict):
            findings.append(_finding("inventory-layout", Location(display, lines.get(path)), ("groups", name),
                                     f"group '{name}' is not a mapping", "give it hosts: and/or children:"))
            return
        for key in body:
            if key not in ("hosts", "children", "vars"):
                findings.append(_finding("inventory-layout", Location(display, lines.get(path + (key,))), ("groups", name),
                                         f"group '{name}' has an unknown entry '{key}'",
                                         "a group holds only hosts:, children: and vars:"))
        if body.get("vars"):
            findings.append(_finding("inventory-layout", Location(display, lines.get(path + ("vars",))), ("groups", name),
                                     f"group '{name}' sets vars in the inventory file",
                                     f"move them to group_vars/{name}.yml"))
        hosts = body.get("hosts") or {}
        if isinstance(hosts, dict):
            for host, host_vars in hosts.items():
                host = str(host)
                groups[name].add(host)
                host_paths.setdefault(host, path + ("hosts", host))
                if isinstance(host_vars, dict) and host_vars:
                    inline_vars.setdefault(host, []).append((host_vars, path + ("hosts", host)))
        elif hosts:
            findings.append(_finding("inventory-layout", Location(display, lines.get(path + ("hosts",))), ("groups", name),
                                     f"hosts of group '{name}' are not a mapping", "write hosts as 'name:' entries"))
        kids = body.get("children") or {}
        if isinstance(kids, dict):
            for child, child_body in kids.items():
                children.setdefault(name, set()).add(str(child))
                walk(str(child), child_body, path + ("children", child))

    for top, body in data.items():
        walk(str(top), body, (top,))
    for loop in group_loops(children):
        where = group_paths.get(loop[0], ())
        findings.append(_finding("inventory-layout", Location(display, lines.get(where)), ("groups", loop[0]),
                                 f"group '{loop[0]}' is its own descendant ({' -> '.join(loop)}): Ansible refuses the loop or "
                                 "drops groups from it, and runs on other hosts than the file lists",
                                 "list each group under parents that are not its own children"))

    flattened, host_groups = flatten_groups(groups, children)
    return flattened, host_groups, inline_vars, lines, host_paths, group_paths


def _inline_vars_file(site: Site, host: str, occurrences: list[tuple[dict, tuple]]) -> tuple[VarsFile, list[Finding]]:
    """The variables hosts.yml sets on a host where it lists it, as one host-scope VarsFile (Ansible
    merges them, the last listing winning), and an error per variable two listings set differently."""
    data: dict = {}
    lines: dict[tuple, int] = {}
    first_seen: dict[str, tuple] = {}
    findings: list[Finding] = []
    for variables, path in occurrences:
        for key, value in variables.items():
            key_text = str(key)
            where = path + (key,)
            if key_text in first_seen and repr(data[key_text]) != repr(value):
                first = site._inventory_location(first_seen[key_text])
                findings.append(_finding(
                    "competing-groups", site._inventory_location(where), ("hosts", host, key_text),
                    f"{host} is listed in two groups of the inventory that set '{key_text}' differently (first at {first}); "
                    "Ansible keeps the last one it reads",
                    f"set '{key_text}' of {host} once: in host_vars/{host}.yml or where the host is first listed"))
            first_seen.setdefault(key_text, where)
            data[key_text] = value
            for inner, line in site.inventory_lines.items():
                if inner[:len(where)] == where:
                    lines[(key_text,) + inner[len(where):]] = line
    return VarsFile(site.hosts_file, "host", host, data, lines or {(): 1}), findings


def group_loops(children: dict[str, set[str]]) -> list[list[str]]:
    """Each loop of the children graph once, as the path that closes it ('a -> b -> a')."""
    loops: list[list[str]] = []
    seen_loops: set[frozenset[str]] = set()
    done: set[str] = set()

    def visit(group: str, trail: list[str]) -> None:
        if group in trail:
            loop = trail[trail.index(group):] + [group]
            key = frozenset(loop)
            if key not in seen_loops:
                seen_loops.add(key)
                loops.append(loop)
            return
        if group in done:
            return
        for child in sorted(children.get(group, set())):
            visit(child, trail + [group])
        done.add(group)

    for group in sorted(children):
        visit(group, [])
    return loops


def flatten_groups(direct: dict[str, set[str]], children: dict[str, set[str]],
                   extra_hosts: Iterable[str] = ()) -> tuple[dict[str, list[str]], dict[str, set[str]]]:
    """Each group's hosts with its children's ('all' holds every host), and each host's groups."""

    def members(group: str, seen: set[str]) -> set[str]:
        if group in seen:
            return set()
        seen.add(group)
        found = set(direct.get(group, set()))
        for child in children.get(group, set()):
            found |= members(child, seen)
        return found

    flattened = {group: sorted(members(group, set())) for group in set(direct) | set(children)}
    everyone = set(extra_hosts)
    host_groups: dict[str, set[str]] = {}
    for group, hosts in flattened.items():
        everyone.update(hosts)
        for host in hosts:
            host_groups.setdefault(host, set()).add(group)
    for host in everyone:
        host_groups.setdefault(host, set()).add("all")
    flattened["all"] = sorted(everyone)
    return flattened, host_groups


def resolve_site_file(path: str, files_dir: str | None, inventory_dir: str) -> str:
    """A file the model names: absolute as given, else under the site's files directory or the inventory's."""
    return path if os.path.isabs(path) else os.path.join(files_dir or inventory_dir, path)


def site_file_outside(path: str, files_dir: str | None, inventory_dir: str) -> str | None:
    """Why a file the model names is not inside the site's files directory (files_dir, else the
    inventory's directory), or None when it is: an absolute path, a relative one that leads out
    (../), or a symbolic link, anywhere on the way, to a place outside."""
    if os.path.isabs(path):
        return "is an absolute path"
    base = os.path.abspath(files_dir or inventory_dir)
    if "\x00" in path:
        return "is not a path (it holds a NUL character)"
    if os.path.normpath(os.path.join(base, path)) == base:
        return "names the directory " + display_path(base) + " itself, not a file in it"
    if not _is_inside(os.path.normpath(os.path.join(base, path)), base):
        return "leads outside " + display_path(base)
    if not _is_inside(os.path.realpath(os.path.join(base, path)), os.path.realpath(base)):
        return "is a symbolic link to a place outside " + display_path(base)
    return None


def _is_inside(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)


def _vars_paths(base: str) -> list[tuple[str, str]]:
    """(owner, path) of vars files under group_vars/ or host_vars/: name.yml or name/*.yml."""
    found: list[tuple[str, str]] = []
    if not os.path.isdir(base):
        return found
    for entry in sorted(os.listdir(base)):
        full = os.path.join(base, entry)
        if entry.startswith("."):
            continue
        if os.path.isdir(full):
            # Ansible follows links to directories here, so the validator does too (once each).
            visited: set[str] = set()
            for root, dirs, names in os.walk(full, followlinks=True):
                real = os.path.realpath(root)
                if real in visited:
                    dirs[:] = []
                    continue
                visited.add(real)
                dirs.sort()
                for name in sorted(names):
                    if name.endswith(VARS_SUFFIXES[:3]) or "." not in name:
                        found.append((entry, os.path.join(root, name)))
        else:
            stem, ext = os.path.splitext(entry)
            if ext in VARS_SUFFIXES:
                found.append((stem, full))
    return found


def _read_vars_files(inventory_dir: str, decrypt: Decryptor | None, findings: list[Finding], budget: Budget) -> list[VarsFile]:
    files: list[VarsFile] = []
    for scope, folder in (("group", "group_vars"), ("host", "host_vars")):
        for owner, path in _vars_paths(os.path.join(inventory_dir, folder)):
            display = display_path(path)
            try:
                text = _read_text(path, budget, inventory_dir)
            except (OSError, UnicodeDecodeError) as exc:
                findings.append(_finding("yaml", Location(display), (), f"cannot read this vars file: {exc}"))
                continue
            except YamlProblem as exc:
                findings.append(_yaml_finding(display, (), exc))
                continue
            encrypted = is_vault_file(text)
            if encrypted:
                if decrypt is None:
                    files.append(VarsFile(display, scope, owner, None, {}, encrypted=True))
                    continue
                try:
                    text = decrypt(text, path)
                except Exception as exc:  # noqa: BLE001 - any vault failure is reported, never raised
                    findings.append(_finding("vault", Location(display), (),
                                             f"cannot decrypt this vault file with the vault ids of this run (it is encrypted for "
                                             f"vault id '{envelope_vault_id(text)}'; {type(exc).__name__})",
                                             "pass the vault id it is encrypted for (--vault-id <id>@<password file>, "
                                             "vault_identity_list or AWX's vault credential); a file that does not "
                                             "decrypt with the right password is damaged: restore it from version control"))
                    files.append(VarsFile(display, scope, owner, None, {}, encrypted=True))
                    continue
            integer_forms: list[tuple[tuple, int, str]] = []
            try:
                data, lines, duplicates = load_with_lines(text, budget, integer_forms)
            except YamlProblem as exc:
                findings.append(_yaml_finding(display, (), exc))
                continue
            vars_file = VarsFile(display, scope, owner, data if isinstance(data, dict) else None, lines, encrypted)
            for form_path, line, written in integer_forms:
                if (form := _integer_form_finding(display, form_path, line, written)) is not None:
                    findings.append(form)
            for dup_path, first, second in duplicates:
                findings.append(_finding("duplicate-key", Location(display, second), tuple(dup_path),
                                         f"'{dup_path[-1]}' is written twice in one mapping (first at line {first}); YAML keeps only the last",
                                         "remove or merge one of them"))
            if data is not None and not isinstance(data, dict):
                findings.append(_finding("yaml", Location(display, 1), (), "a vars file must be a YAML mapping of variables"))
            files.append(vars_file)
    return files


def undecryptable_values(files: list[VarsFile], decrypt: Decryptor) -> list[Finding]:
    """An error per inline vaulted value the run's vault ids cannot decrypt, named by file, line and key.

    Ansible decrypts inline values only when a task uses them, so without this a wrong vault id
    passes validation and fails mid-run. The plaintext is dropped at once; no finding holds a value.
    """
    found: list[Finding] = []
    for vars_file in files:
        for path, value in _vaulted_values(vars_file.data, ()):
            try:
                decrypt(value.ciphertext, vars_file.path)
            except Exception as exc:  # noqa: BLE001 - any vault failure is a finding, never raised
                found.append(_finding(
                    "vault", vars_file.locate(path), path,
                    f"the vaulted value of '{'.'.join(str(part) for part in path)}' cannot be decrypted with the vault ids "
                    f"of this run (it is encrypted for vault id '{value.vault_id()}'; {type(exc).__name__})",
                    f"pass that vault id (--vault-id {value.vault_id()}@<password file>), or encrypt the value again "
                    "with ansible-vault encrypt_string and a vault id the site's runs are given"))
    return found


def _vaulted_values(data: Any, path: tuple) -> list[tuple[tuple, VaultValue]]:
    if isinstance(data, VaultValue):
        return [(path, data)]
    if isinstance(data, dict):
        return [found for key, item in data.items() for found in _vaulted_values(item, path + (key,))]
    if isinstance(data, list):
        return [found for index, item in enumerate(data) for found in _vaulted_values(item, path + (index,))]
    return []


def _collect_keys(site: Site, vars_file: VarsFile, role_options: dict[str, set[str]] | None) -> None:
    if vars_file.data is None:
        return
    scope_text = f"{vars_file.scope}_vars/{vars_file.owner}"
    for key, value in vars_file.data.items():
        key_text = str(key)
        location = vars_file.locate((key,))
        if key_text in CONNECTION_PASSWORDS:
            _connection_password(site, vars_file, key_text, value, location)
            continue
        if key_text.startswith("ansible_"):
            continue
        if SECRET_NAME.match(key_text):
            target = site.secrets if (vars_file.encrypted or isinstance(value, VaultValue)) else site.plaintext_secrets
            target.setdefault(key_text, location)
            _check_secret_type(site, key_text, value, location)
            continue
        if key_text in GLOBAL_KEYS:
            if not (vars_file.scope == "group" and vars_file.owner == "all"):
                site.findings.append(_finding("misplaced-key", location, (key_text,),
                                              f"'{key_text}' is pod-wide model and is ignored in {scope_text}",
                                              f"move it to group_vars/all/{key_text}.yml"))
                continue
            if (key_text,) in site.origins:
                first = site.origins[(key_text,)][0].locate((key_text,))
                site.findings.append(_finding("duplicate-key", location, (key_text,),
                                              f"'{key_text}' is also defined at {first}; Ansible would silently keep only one",
                                              "define each model key in exactly one file"))
                continue
            site.origins[(key_text,)] = (vars_file, (key_text,))
            site.model[key_text] = value
            continue
        if key_text in HOST_KEYS:
            if vars_file.scope != "host":
                site.findings.append(_finding("misplaced-key", location, (key_text,),
                                              f"'{key_text}' describes one host and is ignored in {scope_text}",
                                              f"move it to host_vars/<host>.yml of each host of group {HOST_KEYS[key_text]}"))
                continue
            host = vars_file.owner
            if host not in site.model["hosts"]:
                site.findings.append(_finding("dangling-reference", location, ("hosts", host),
                                              f"host_vars for '{host}', which is not in the inventory",
                                              f"add {host} to a group of {site.hosts_file} or remove the file"))
                continue
            if ("hosts", host, key_text) in site.origins:
                first = site.origins[("hosts", host, key_text)][0].locate((key_text,))
                site.findings.append(_finding("duplicate-key", location, ("hosts", host, key_text),
                                              f"'{key_text}' of {host} is also defined at {first}",
                                              "define it in one file"))
                continue
            site.origins[("hosts", host, key_text)] = (vars_file, (key_text,))
            site.model["hosts"][host][key_text] = value
            continue
        role = _role_of(key_text, role_options or {})
        if role is not None:
            site.role_overrides.setdefault(key_text, []).append((vars_file, (key_text,)))
            if key_text not in (role_options or {}).get(role, set()):
                known = sorted((role_options or {}).get(role, set()))
                close = difflib.get_close_matches(key_text, known, n=1)
                site.findings.append(_finding(
                    "unknown-key", location, (key_text,),
                    f"'{key_text}' looks like a variable of role {role}, which has no such option",
                    f"did you mean '{close[0]}'?" if close else f"see roles/{role}/meta/argument_specs.yml",
                ))
            continue
        candidates = list(GLOBAL_KEYS) + list(HOST_KEYS) + sorted(
            option for options in (role_options or {}).values() for option in options
        )
        close = difflib.get_close_matches(key_text, candidates, n=1, cutoff=0.75)
        shown = shown_key(key_text)
        site.findings.append(_finding(
            "unknown-key", location, (shown,),
            f"unknown top-level key '{shown}' in {scope_text}" if shown == key_text else
            f"a top-level key in {scope_text} is not a variable name ({len(key_text)} characters, not shown): is this a vars file?",
            f"did you mean '{close[0]}'?" if close else
            "model keys are " + ", ".join(GLOBAL_KEYS + tuple(HOST_KEYS)) + "; role overrides start with a role name",
        ))


# A connection password may name its vault secret ("{{ vault_switch_admin_password }}") and nothing more.
VAULT_REFERENCE = re.compile(r"\{\{\s*vault_[a-z0-9_]+\s*\}\}")


def _check_secret_type(site: Site, key: str, value: Any, location: Location) -> None:
    problem = secret_type_problem(value)
    if problem:
        site.findings.append(_finding("secret", location, (key,), f"secret '{key}' {problem}",
                                      f"give it the password as quoted text: {key}: \"...\""))


def _connection_password(site: Site, vars_file: VarsFile, key: str, value: Any, location: Location) -> None:
    """A connection password is encrypted, or names a vault_* secret; never its own text in a vars file."""
    if vars_file.encrypted or isinstance(value, VaultValue):
        _check_secret_type(site, key, value, location)
        return
    if isinstance(value, str) and VAULT_REFERENCE.fullmatch(value.strip()):
        return
    site.findings.append(_finding("secret", location, (key,), f"'{key}' holds a password in plain text (not shown)",
                                  f"name a vault secret instead: {key}: \"{{{{ vault_<name> }}}}\" with vault_<name> in "
                                  "group_vars/all/vault.yml (ansible-vault edit), or give it as an AWX machine credential"))


def _role_of(key: str, role_options: dict[str, set[str]]) -> str | None:
    """The role whose name prefixes this variable (longest match), if any."""
    best = None
    for role in role_options:
        if key.startswith(role + "_") and (best is None or len(role) > len(best)):
            best = role
    return best


def _check_templating(site: Site) -> None:
    """The model is literal data: a Jinja expression would be validated unrendered."""

    def walk(value: Any, path: tuple) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                walk(item, path + (key,))
        elif isinstance(value, list):
            for index, item in enumerate(value):
                walk(item, path + (index,))
        elif isinstance(value, str) and TEMPLATE_MARK.search(value):
            site.findings.append(_finding("templating", site.locate(path), path,
                                          "the site model must be literal data, not a Jinja expression",
                                          "write the value itself; derived values are computed by the roles"))

    for key in GLOBAL_KEYS:
        if key in site.model:
            walk(site.model[key], (key,))
    for host, body in site.model["hosts"].items():
        for key in HOST_KEYS:
            if key in body:
                walk(body[key], ("hosts", host, key))


def load_role_specs(roles_dir: str) -> dict[str, dict[str, dict]]:
    """Every role's options with their specs (meta/argument_specs.yml; an option several entry points
    declare keeps its first spec, main's first): role -> option -> spec."""
    import yaml  # local: only this helper needs it beyond yamlload

    specs: dict[str, dict[str, dict]] = {}
    if not os.path.isdir(roles_dir):
        return specs
    for role in sorted(os.listdir(roles_dir)):
        if not os.path.isdir(os.path.join(roles_dir, role)):
            continue
        spec_path = os.path.join(roles_dir, role, "meta", "argument_specs.yml")
        options: dict[str, dict] = {}
        if os.path.isfile(spec_path):
            with open(spec_path, encoding="utf-8") as handle:
                entries = (yaml.safe_load(handle) or {}).get("argument_specs") or {}
            for entry_point in sorted(entries, key=lambda name: name != "main"):
                for name, spec in ((entries[entry_point] or {}).get("options") or {}).items():
                    options.setdefault(name, spec if isinstance(spec, dict) else {})
        specs[role] = options
    return specs
