"""The ingest room: each source's inputs listed, read and loaded into its raw tables, without
Dagster.

A source is one `Source` (source.py): the tables it writes, how it finds the days its inputs
hold, and how it reads and loads a run's window, handed an `IngestRun` (run.py) and answering
plain counts. `registry.py` names every source; pipelines/sources.py makes each one's Dagster
asset from it, and `flopledger run` asks the registry for the days to run."""
