"""python -m sim.cli: the biathlon-sim command."""
import sys

from . import main

sys.exit(main())
