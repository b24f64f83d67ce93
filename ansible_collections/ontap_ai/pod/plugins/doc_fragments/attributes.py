"""Documentation fragment: the attributes the collection's modules share (ansible-doc's ATTRIBUTES)."""
from __future__ import annotations


class ModuleDocFragment:
    """Use with ansible.builtin.action_common_attributes, which describes each attribute."""

    # A module that only reads the host it runs on: check mode runs it as is; nothing to diff.
    READS = r"""
attributes:
  check_mode:
    support: full
    details: It only reads, so check mode runs it the same way.
  diff_mode:
    support: none
  platform:
    platforms: posix
"""

    # A module that writes to the host it runs on only where the host differs from what it is given.
    WRITES = r"""
attributes:
  check_mode:
    support: full
    details: Check mode reports what would change without writing.
  diff_mode:
    support: full
  platform:
    platforms: posix
"""
