"""The ONTAP AI pod site model: loading, derivation and validation (pure Python, no Ansible needed).

Used by the validate_site action plugin, the aipod filter plugins, the tests and the benchmarks.
"""
from .findings import Finding, Location
from .validate import Report, validate_site

__all__ = ["Finding", "Location", "Report", "validate_site"]
