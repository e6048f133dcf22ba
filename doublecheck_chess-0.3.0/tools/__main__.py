"""``python -m doublecheck``: the same as the ``doublecheck`` command."""

import sys

from doublecheck.cli import main

sys.exit(main())
