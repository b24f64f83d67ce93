"""Stand-in for get-pip.py, which ansible-test downloads from ci-files.testing.ansible.com to put pip
into the virtual environments it creates. That host is not reachable from every CI machine, and
ansible-test reads the script from its cache first (~/.ansible/test/cache/get_pip_<version>.py), so
scripts/ansible-test.sh places this one there: pip from the pip wheel of the interpreter's prefix
(share/python-wheels, where Debian keeps it), else from the interpreter's own ensurepip, then
`pip install` of what ansible-test asks for (the pinned pip release, from the configured index). The
wheel comes first because a Debian interpreter run from another root (scripts/bootstrap.sh) has an
ensurepip that looks for its wheel at an absolute path of its own root.
"""
import ensurepip
import glob
import os
import re
import subprocess
import sys

# get-pip.py's own switches; the rest are pip install arguments.
arguments = [argument for argument in sys.argv[1:] if argument not in ("--no-setuptools", "--no-wheel")]

def version(wheel: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", os.path.basename(wheel).split("-")[1]))


wheels = sorted(glob.glob(os.path.join(sys.base_prefix, "share", "python-wheels", "pip-*.whl")), key=version)
if wheels:
    subprocess.check_call([sys.executable, os.path.join(wheels[-1], "pip"), "install", "--quiet", "--no-index", wheels[-1]])
else:
    ensurepip.bootstrap(upgrade=True)
# ensurepip points pip at no configuration file in this process; the install below must read the
# machine's pip configuration (index, certificate bundle) like any other pip run.
environment = {key: value for key, value in os.environ.items() if key not in ("PIP_CONFIG_FILE", "ENSUREPIP_OPTIONS")}
subprocess.check_call([sys.executable, "-m", "pip", "install", *arguments], env=environment)
