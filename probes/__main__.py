"""`python -m flopledger.probes [--quick|--full] [--dtype ...] [--out FILE]` from the repository root."""

import sys

from flopledger.probes.cli import main

sys.exit(main())
