"""Billing export rows into `billing_line_items`: every row not seen before, whatever its day."""

from datetime import date

from flopledger.collectors.gcp_billing.read import BillingRead, in_batches_of, iter_billing_batches
from flopledger.ingest.gcp_billing.extracts import choose, held_days, remember
from flopledger.ingest.gcp_billing.landed import export_config, taken_through
from flopledger.ingest.gcp_billing.skus import classify_unclassified
from flopledger.ingest.loading import store_quarantine
from flopledger.ingest.run import IngestRun
from flopledger.ingest.source import Loaded, Source, Table
from flopledger.warehouse.arrow_sql import ArrowSQL

TABLE = "billing_line_items"
# Rows per warehouse insert (each scans the keys stored): ~100k rows is ~100 MB of Arrow.
INSERT_ROWS = 100_000
REREAD = "already taken (the export table's trailing window, read again)"


class GcpBilling(Source):
    name = "gcp_billing"
    tables = (
        Table(
            TABLE,
            "GCP billing export rows (NDJSON and Parquet extracts, or the BigQuery export table), exact decimals.",
        ),
    )
    # Extracts are named by export day and carry late rows for any earlier day: read whole.
    day_slack = None

    def find_days(self, run: IngestRun) -> set[date]:
        """The usage days of the extracts' rows and, with the export table
        (sources.gcp_billing.bigquery), of its rows not yet taken."""
        days = held_days(run.config, run.warehouse, run.run_key, run.limits)
        if export_config(run.config) is None:
            return days
        from flopledger.ingest.gcp_billing.export import export_input_days

        return days | export_input_days(run.config, run.warehouse, run.now.date())

    def load(self, run: IngestRun) -> Loaded:
        config, warehouse = run.config, run.warehouse
        # Every row not seen before, whatever its usage day (late credits arrive weeks on);
        # only an explicit backfill range (`flopledger run --from/--to`) keeps to its days.
        days = set(run.days) if run.window_only else None
        stats = BillingRead()
        new = duplicates = reread = 0
        now, limits = run.now, run.limits  # a scheduled run: its tick, not the wall clock
        # The extracts new or rewritten since they were read whole; a run kept to its days,
        # those that may hold a row of them (ingest/gcp_billing/extracts.py).
        extracts = choose(config, warehouse, run.run_key, days, limits)
        inputs, paths = extracts.inputs, extracts.inputs.paths
        if note := extracts.note():
            run.info(note)
        # Extracts read in columns (collectors/gcp_billing/columnar.py: DuckDB proves the
        # common rows plain; the per-row normaliser takes the rest), the same rows either way.
        with ArrowSQL() as engine:
            batches = iter_billing_batches(
                paths, stats, days, ingested_at=now, limits=limits, engine=engine
            )
            for batch in in_batches_of(batches, INSERT_ROWS):
                # the row id hashes the usage day: only those days' ids are compared
                inserted = warehouse.insert_new(TABLE, batch, "row_id", day="usage_day")
                new += inserted
                duplicates += batch.num_rows - inserted
        # The export table itself, when sources.gcp_billing.bigquery names it. Each read goes
        # back over the trailing window on purpose: a row read again is already taken, not a
        # duplicate, so a run with nothing new reports nothing new.
        # On a warehouse that reads the table in place (BigQuery beside it), the rows are
        # normalised and taken there (ingest/gcp_billing/in_place.py).
        from_files = len(stats.quarantined)
        remember(warehouse, extracts, stats.quarantined, limits)
        taken = taken_before = 0
        if export_config(config) is not None:  # the BigQuery client loads only then
            from flopledger.ingest.gcp_billing.export import take_export

            taken, taken_before = take_export(config, warehouse, stats, now, days, limits, run.info)
        new += taken
        reread += taken_before
        store_quarantine(warehouse, stats.quarantined[:from_files])
        # A bad table row read again is already in quarantine: already taken, not new.
        table_bad = len(stats.quarantined) - from_files
        stored = store_quarantine(warehouse, stats.quarantined[from_files:])
        reread += table_bad - stored
        quarantined = stats.rows_quarantined - (table_bad - stored)
        # Rows an older warehouse loaded before the SKU columns existed: classified once.
        if classified := classify_unclassified(run.warehouse):
            run.info(f"gcp_billing: {classified} rows loaded earlier had their SKU classified")
        run.info(
            f"gcp_billing: {stats.rows_in_window} rows, {new} new, {duplicates} seen before, "
            f"{reread} already taken from the export table, {quarantined} quarantined"
        )
        # How far the bill has landed: the latest export_time taken, per table and for the files.
        landed = {k: v.isoformat(sep=" ") for k, v in taken_through(warehouse).items()}
        return {
            TABLE: {
                **inputs.metadata(run),
                "files_read": len(paths),
                "export_time_taken_through": landed,
                # read is counted as found; loaded = new rows, duplicate = seen before
                # (an earlier run, another extract or the same one twice).
                "rows_read": stats.rows_read,
                "rows_loaded": new,
                "rows_duplicate": duplicates,
                "rows_quarantined": quarantined,
                "rows_outside_window": stats.rows_outside_window,
                # read again from the export table's trailing window, taken before
                "rows_skipped": reread,
                **({"skipped_because": REREAD} if reread else {}),
            }
        }
