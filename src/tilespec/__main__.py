"""``python -m tilespec``: the command line."""

import sys

from tilespec.cli import main

sys.exit(main())
