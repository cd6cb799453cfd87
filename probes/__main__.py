"""`python -m probes [--quick|--full] [--dtype ...] [--out FILE]` from the repository root."""

import sys

from probes.cli import main

sys.exit(main())
