"""The `flopledger` command line: `cli/main.py` dispatches to one module per command in
`cli/commands/`; `headline.py` and `run_report.py` say what a run found."""
