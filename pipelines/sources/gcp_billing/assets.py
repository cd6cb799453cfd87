"""Billing export rows into `billing_line_items`: every row not seen before, whatever its day."""

import dagster as dg

from flopledger.collectors.gcp_billing.days import files_for_days
from flopledger.collectors.gcp_billing.read import BillingRead, in_batches_of, iter_billing_batches
from flopledger.pipelines.inputs import source_inputs
from flopledger.pipelines.loading import counts_metadata, run_limits, store_quarantine
from flopledger.pipelines.partitions import daily_raw_asset, window_days
from flopledger.pipelines.resources import Flopledger
from flopledger.pipelines.run_tags import run_now, window_only
from flopledger.pipelines.sources.gcp_billing.export import take_export, taken_through
from flopledger.pipelines.sources.gcp_billing.skus import classify_unclassified
from flopledger.warehouse.arrow_sql import ArrowSQL

# Rows per warehouse insert (each scans the keys stored): ~100k rows is ~100 MB of Arrow.
INSERT_ROWS = 100_000
REREAD = "already taken (the export table's trailing window, read again)"


def build_assets(partitions: dg.PartitionsDefinition) -> list[dg.AssetsDefinition]:
    @daily_raw_asset(
        "billing_line_items",
        partitions,
        "GCP billing export rows (NDJSON and Parquet extracts, or the BigQuery export table), exact decimals.",
    )
    def billing_line_items(
        context: dg.AssetExecutionContext, flopledger: Flopledger
    ) -> dg.MaterializeResult:
        config, warehouse = flopledger.config(), flopledger.warehouse()
        # Every row not seen before, whatever its usage day (late credits arrive weeks on);
        # only an explicit backfill range (`flopledger run --from/--to`) keeps to its days.
        days = set(window_days(context)) if window_only(context) else None
        stats = BillingRead()
        new = duplicates = reread = 0
        inputs = source_inputs(config, "gcp_billing", context.run_id)  # local or gs://
        now = run_now(context, flopledger)  # a scheduled run: its tick, not the wall clock
        limits = run_limits(config, now)
        # A run kept to its days reads only the extracts that may hold a row of them (a scan
        # of each file's usage_start_time values, far cheaper than normalising its rows).
        paths = inputs.paths if days is None else files_for_days(inputs.paths, days, limits)
        if len(paths) < len(inputs.paths):
            context.log.info(
                f"gcp_billing: {len(inputs.paths) - len(paths)} of {len(inputs.paths)} extracts "
                "hold no row of the run's days: not read"
            )
        # Extracts read in columns (collectors/gcp_billing/columnar.py: DuckDB proves the
        # common rows plain; the per-row normaliser takes the rest), the same rows either way.
        with ArrowSQL() as engine:
            batches = iter_billing_batches(
                paths, stats, days, ingested_at=now, limits=limits, engine=engine
            )
            for batch in in_batches_of(batches, INSERT_ROWS):
                inserted = warehouse.insert_new("billing_line_items", batch, "row_id")
                new += inserted
                duplicates += batch.num_rows - inserted
        # The export table itself, when sources.gcp_billing.bigquery names it. Each read goes
        # back over the trailing window on purpose: a row read again is already taken, not a
        # duplicate, so a run with nothing new reports nothing new.
        # On a BigQuery warehouse beside the table, the rows are normalised and taken in place
        # (pipelines/sources/gcp_billing/in_place.py).
        from_files = len(stats.quarantined)
        taken, taken_before = take_export(
            config, warehouse, stats, now, days, limits, context.log.info
        )
        new += taken
        reread += taken_before
        store_quarantine(warehouse, stats.quarantined[:from_files])
        # A bad table row read again is already in quarantine: already taken, not new.
        table_bad = len(stats.quarantined) - from_files
        stored = store_quarantine(warehouse, stats.quarantined[from_files:])
        reread += table_bad - stored
        quarantined = stats.rows_quarantined - (table_bad - stored)
        # Rows an older warehouse loaded before the SKU columns existed: classified once.
        if classified := classify_unclassified(warehouse):
            context.log.info(
                f"gcp_billing: {classified} rows loaded earlier had their SKU classified"
            )
        context.log.info(
            f"gcp_billing: {stats.rows_in_window} rows, {new} new, {duplicates} seen before, "
            f"{reread} already taken from the export table, {quarantined} quarantined"
        )
        # How far the bill has landed: the latest export_time taken, per table and for the files.
        landed = {k: v.isoformat(sep=" ") for k, v in taken_through(warehouse).items()}
        return dg.MaterializeResult(
            metadata={
                **inputs.metadata(context),
                "files_read": dg.MetadataValue.int(len(paths)),
                "export_time_taken_through": dg.MetadataValue.json(landed),
                **counts_metadata(
                    # read is counted as found; loaded = new rows, duplicate = seen before
                    # (an earlier run, another extract or the same one twice).
                    rows_read=stats.rows_read,
                    rows_loaded=new,
                    rows_duplicate=duplicates,
                    rows_quarantined=quarantined,
                    rows_outside_window=stats.rows_outside_window,
                    # read again from the export table's trailing window, taken before
                    rows_skipped=reread,
                ),
                **({"skipped_because": dg.MetadataValue.text(REREAD)} if reread else {}),
            }
        )

    return [billing_line_items]
