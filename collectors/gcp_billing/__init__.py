"""The Google Cloud Billing detailed usage cost export, read from its NDJSON and Parquet extracts."""

from flopledger.collectors.gcp_billing.read import BillingRead, read_billing_files

__all__ = ["BillingRead", "read_billing_files"]
