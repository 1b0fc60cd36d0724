"""``python -m rummy_env.cli``: the ``rummy`` command."""

import sys

from rummy_env.cli.main import main

sys.exit(main())
