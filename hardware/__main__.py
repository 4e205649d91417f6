"""`python -m hardware ...`: see hardware.cli."""

from hardware.cli import main

raise SystemExit(main())
