"""/etc/fstab as ansible.posix.mount reads and writes it, so that a comparison here agrees with it.

That module matches a line by its mount point in escaped form, reads dump and passno as 0 when a
Linux line omits them (an int, which never equals the string it writes: such a line is rewritten),
and rewrites a line whose src, fstype, opts, dump or passno differ.
"""
from __future__ import annotations


def escape(value: str) -> str:
    """A field in fstab's escaped form, as ansible.posix.mount writes it."""
    return value.replace("\\", "\\134").replace(" ", "\\040").replace("&", "\\046")


def lines(text: str | None, paths: list[str]) -> dict[str, list[list[str]]]:
    """The fields of every fstab line for each mount point of paths (comments and malformed lines skipped)."""
    wanted = {escape(path): path for path in paths}
    found: dict[str, list[list[str]]] = {path: [] for path in paths}
    for line in (text or "").splitlines():
        if line.strip().startswith("#"):
            continue
        fields = line.split("#")[0].split()
        if len(fields) in (4, 5, 6) and fields[1] in wanted:
            found[wanted[fields[1]]].append(fields)
    return found


def line_differs(found: list[list[str]], src: str, path: str, fstype: str, opts: str, dump: str = "0",
                 passno: str = "0") -> str | None:
    """Why ansible.posix.mount would change fstab for this mount (None when it would not)."""
    if not found:
        return "not in /etc/fstab"
    wanted = [escape(src), escape(path), escape(fstype), escape(opts), dump, passno]
    for fields in found:
        if len(fields) < 6:
            return f"its /etc/fstab line lacks dump and passno: {' '.join(fields)}"
        if fields != wanted:
            return f"/etc/fstab has '{' '.join(fields)}', the model wants '{' '.join(wanted)}'"
    return None
