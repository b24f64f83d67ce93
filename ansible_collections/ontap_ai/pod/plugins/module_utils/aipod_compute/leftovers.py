"""What config_files removes besides writing: entries of its exclusive directories it does not keep,
and the temporary files of writes a killed run left between creating and renaming them.

One rule for the module that removes them and for the comparison that decides a host needs a run.
"""
from __future__ import annotations

import fnmatch
import os

TEMPORARY_PREFIX = ".config_files-"
TEMPORARY_PATTERN = TEMPORARY_PREFIX + "*"


def is_temporary(name: str) -> bool:
    """Whether a file name is one of config_files' temporary files."""
    return fnmatch.fnmatchcase(name, TEMPORARY_PATTERN)


def leftovers(listing: dict[str, list[str]], wanted: set[str], exclusive: set[str]) -> list[str]:
    """The paths to remove: in an exclusive directory every entry not wanted, elsewhere the temporary
    files of interrupted writes. listing maps a directory to the names of its files and links."""
    found = []
    for directory, names in listing.items():
        for name in names:
            path = os.path.join(directory, name)
            if path not in wanted and (directory in exclusive or is_temporary(name)):
                found.append(path)
    return sorted(found)
