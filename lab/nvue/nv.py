#!/usr/bin/env python3
"""`nv`, NVUE's command line, on the lab's object model (nvue_model.py): what a Cumulus switch answers.

The switch's state lives in one JSON file (NVUE_STATE, default /var/lib/aipod-nvue/state.json),
locked while a command runs; a missing file is a switch as it ships (NVUE_PORTS front-panel ports,
default 64; NVUE_HOSTNAME). Commands:

    nv set|unset <path...>
    nv config diff [<rev-a> <rev-b>] [-o json] | detach | apply [<rev>] [-y|--assume-yes] [-m <message>]
    nv config show [-o json|yaml] | history | save
    nv show [<path...>] [-o json|yaml] [--applied|--pending|--startup|--rev <rev>]

Errors go to standard error with exit code 1 (docs/lab-nvue-endpoint.md says which messages are
NVIDIA's and which the lab's own).
"""
from __future__ import annotations

import contextlib
import fcntl
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nvue_model import NvueError, NvueSwitch, Revision, to_yaml  # noqa: E402

STATE = os.environ.get("NVUE_STATE", "/var/lib/aipod-nvue/state.json")


@contextlib.contextmanager
def switch_state():
    os.makedirs(os.path.dirname(STATE) or ".", exist_ok=True)
    with open(STATE + ".lock", "w", encoding="utf-8") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if os.path.exists(STATE):
            with open(STATE, encoding="utf-8") as handle:
                data = json.load(handle)
            switch = NvueSwitch(hostname=data["hostname"], ports=data["ports"], applied=data["applied"],
                                startup=data["startup"], next_rev=data["next_rev"],
                                pending=Revision(**data["pending"]) if data.get("pending") else None,
                                revisions=[Revision(**r) for r in data["revisions"]])
        else:
            switch = NvueSwitch.factory(os.environ.get("NVUE_HOSTNAME", "cumulus"), int(os.environ.get("NVUE_PORTS", "64")))
        yield switch
        data = {"hostname": switch.hostname, "ports": switch.ports, "applied": switch.applied, "startup": switch.startup,
                "next_rev": switch.next_rev, "pending": switch.pending.as_dict() if switch.pending else None,
                "revisions": [r.as_dict() for r in switch.revisions]}
        temporary = STATE + ".tmp"
        with open(temporary, "w", encoding="utf-8") as handle:
            # Compact: with an indent, json falls back to its pure-Python encoder, which was most of
            # what one `nv set` cost (a switch stages a few hundred of them per run).
            handle.write(json.dumps(data, separators=(",", ":")))
        os.replace(temporary, STATE)


def _options(words: list[str]) -> tuple[list[str], dict]:
    """Split NVUE's options (-o FORMAT, -y, -m MSG, --rev REV, --applied ...) from the path words."""
    rest, options = [], {"output": "auto", "rev": "applied", "yes": False, "message": ""}
    index = 0
    while index < len(words):
        word = words[index]
        if word in ("-o", "--output") and index + 1 < len(words):
            options["output"], index = words[index + 1], index + 2
        elif word in ("-y", "--assume-yes"):
            options["yes"], index = True, index + 1
        elif word in ("-m", "--message") and index + 1 < len(words):
            options["message"], index = words[index + 1], index + 2
        elif word == "--rev" and index + 1 < len(words):
            options["rev"], index = words[index + 1], index + 2
        elif word in ("--applied", "--pending", "--startup"):
            options["rev"], index = word[2:], index + 1
        else:
            rest.append(word)
            index += 1
    return rest, options


def _print(value, output: str) -> None:
    if output == "json":
        print(json.dumps(value, indent=2, sort_keys=True))
    else:
        print(to_yaml(value), end="")


def main(argv: list[str]) -> int:
    if not argv:
        print("Usage: nv <command> [options]", file=sys.stderr)
        return 1
    try:
        with switch_state() as switch:
            verb, words = argv[0], argv[1:]
            if verb in ("set", "unset"):
                switch.edit(verb, words)
            elif verb == "config" and words:
                action, rest = words[0], words[1:]
                rest, options = _options(rest)
                if action == "diff":
                    revisions = rest if len(rest) == 2 else []
                    if options["output"] == "json":
                        _print(switch.diff_parts(*revisions), "json")
                    else:
                        print(switch.diff(*revisions), end="")
                elif action == "detach":
                    switch.detach()
                elif action == "apply":
                    print(switch.apply(rest[0] if rest else None, options["message"]))
                elif action == "show":
                    # As NVUE prints it: a header, then the applied revision as one `set` tree.
                    header = {"model": "lab", "nvue-api-version": "nvue_v1", "rev-id": 1.0, "version": "Cumulus Linux 5.9.1"}
                    _print([{"header": header}, {"set": switch.config("applied")}], options["output"])
                elif action == "history":
                    _print(switch.history(), options["output"])
                elif action == "save":
                    switch.startup = json.loads(json.dumps(switch.applied))
                    print("saved")
                else:
                    raise NvueError(f"Invalid Command: config {action}")
            elif verb == "show":
                path, options = _options(words)
                _print(switch.show(path, options["rev"]), options["output"])
            else:
                raise NvueError(f"Invalid Command: {verb}")
    except NvueError as error:
        print(str(error), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
