"""python -m vmlab up|down|status (lab/vms/up, down and status call this)."""
import sys

from .lab import main

sys.exit(main(sys.argv[1:]))
