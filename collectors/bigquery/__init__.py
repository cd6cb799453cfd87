"""BigQuery: the one client factory (`client.py`) and what flopledger asks of the service."""
