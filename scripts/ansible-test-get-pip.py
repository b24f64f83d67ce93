"""Stand-in for get-pip.py, which ansible-test downloads from ci-files.testing.ansible.com to put pip
into the virtual environments it creates. That host is not reachable from every CI machine, and
ansible-test reads the script from its cache first (~/.ansible/test/cache/get_pip_<version>.py), so
scripts/sanity.sh places this one there: pip from the interpreter's own ensurepip, then `pip install`
of what ansible-test asks for (the pinned pip release, from the configured index).
"""
import ensurepip
import os
import subprocess
import sys

# get-pip.py's own switches; the rest are pip install arguments.
arguments = [argument for argument in sys.argv[1:] if argument not in ("--no-setuptools", "--no-wheel")]
ensurepip.bootstrap(upgrade=True)
# ensurepip points pip at no configuration file in this process; the install below must read the
# machine's pip configuration (index, certificate bundle) like any other pip run.
environment = {key: value for key, value in os.environ.items() if key not in ("PIP_CONFIG_FILE", "ENSUREPIP_OPTIONS")}
subprocess.check_call([sys.executable, "-m", "pip", "install", *arguments], env=environment)
