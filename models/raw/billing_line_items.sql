-- @table: One row of the Google Cloud Billing detailed usage cost export (or its extract). Rows are appended, never rewritten; an exact duplicate (every field equal, export_time included) is stored once.
-- @grain day: usage_start .. usage_end
CREATE TABLE IF NOT EXISTS billing_line_items (
    row_id VARCHAR PRIMARY KEY,            -- Hash of the row's full canonical content: equal ids, equal rows.
    usage_day DATE NOT NULL,               -- UTC day of usage_start: the partition.
    usage_start TIMESTAMP NOT NULL,        -- Start of the usage window (UTC).
    usage_end TIMESTAMP NOT NULL,          -- End of the usage window (UTC).
    export_time TIMESTAMP,                 -- When Google appended the row (UTC); late credits and corrections have later export times.
    provider VARCHAR NOT NULL,             -- Cloud provider: gcp.
    billing_account_id VARCHAR,            -- Cloud Billing account the cost belongs to.
    project_id VARCHAR,                    -- Project id (project.id).
    project_number VARCHAR,                -- Project number (project.number).
    project_name VARCHAR,                  -- Project display name.
    service_id VARCHAR,                    -- Service id, e.g. 6F81-5844-456A for Compute Engine.
    service_name VARCHAR,                  -- Service description, e.g. Compute Engine.
    sku_id VARCHAR,                        -- SKU id.
    sku_description VARCHAR,               -- SKU description, e.g. 'Nvidia H100 80GB GPU running in Americas'.
    resource_name VARCHAR,                 -- resource.name: the VM or TPU node name, as jobs and telemetry name it.
    resource_global_name VARCHAR,          -- resource.global_name: the resource's globally unique name.
    location VARCHAR,                      -- location.location.
    country VARCHAR,                       -- location.country.
    region VARCHAR,                        -- location.region.
    zone VARCHAR,                          -- location.zone.
    usage_amount DECIMAL(38, 9),           -- usage.amount in usage_unit.
    usage_unit VARCHAR,                    -- usage.unit, e.g. seconds, byte-seconds, bytes.
    usage_amount_in_pricing_units DECIMAL(38, 9), -- usage.amount_in_pricing_units.
    usage_pricing_unit VARCHAR,            -- usage.pricing_unit, e.g. hour, gibibyte month.
    cost DECIMAL(38, 9),                   -- Billed cost in the row's currency, before credits.
    credits_total DECIMAL(38, 9),          -- Sum of the row's credits in the row's currency (zero or negative).
    credits STRUCT(name VARCHAR, amount DECIMAL(38, 9), full_name VARCHAR, id VARCHAR, type VARCHAR)[], -- The row's credits as exported (amounts in the row's currency).
    cost_at_list DECIMAL(38, 9),           -- Cost at list price in the row's currency.
    currency VARCHAR,                      -- Currency the row is billed in.
    currency_conversion_rate DECIMAL(38, 18), -- US dollars to the row's currency: cost / rate = USD.
    cost_usd DECIMAL(38, 9),               -- cost in USD: cost / currency_conversion_rate, rounded half-even to 9 places.
    credits_total_usd DECIMAL(38, 9),      -- credits_total in USD, rounded half-even to 9 places.
    cost_at_list_usd DECIMAL(38, 9),       -- cost_at_list in USD, rounded half-even to 9 places.
    cost_type VARCHAR,                     -- regular, tax, adjustment or rounding_error.
    adjustment_type VARCHAR,               -- adjustment_info.type for corrections, e.g. USAGE_CORRECTION.
    adjustment_mode VARCHAR,               -- adjustment_info.mode for corrections.
    invoice_month VARCHAR,                 -- Invoice month (YYYYMM): what the invoice shows.
    transaction_type VARCHAR,              -- GOOGLE, THIRD_PARTY_RESELLER or THIRD_PARTY_AGENCY.
    labels MAP(VARCHAR, VARCHAR),          -- Resource labels (key to value).
    system_labels MAP(VARCHAR, VARCHAR),   -- System labels, e.g. compute.googleapis.com/machine_spec.
    project_labels MAP(VARCHAR, VARCHAR),  -- Project labels.
    accelerator_type VARCHAR,              -- Canonical accelerator from the SKU (H100-80GB, TPU-v5p, ...); null for non-accelerator SKUs.
    accelerator_seconds DECIMAL(38, 9),    -- Accelerator-seconds paid by this row (accelerator SKUs; usage in seconds).
    pricing_model VARCHAR,                 -- on_demand, spot, commitment, reserved or dws, from the SKU description (collectors/sku_rules.csv, as the columns below).
    sku_kind VARCHAR,                      -- What the SKU bills: accelerator (accelerator_type names it), network, storage, cores, memory, compute (other VM SKUs) or other. Null only on a row loaded before the column existed, until the next billing run classifies it.
    is_commitment_fee BOOLEAN,             -- A resource-based commitment's fee (SKU 'Commitment v1: ...'): a commitment, not a resource.
    commitment_term VARCHAR,               -- A commitment fee's term from its SKU (1 Year, 3 Years); null when it does not say, or not a fee.
    network_traffic VARCHAR,               -- Network SKUs: internet, inter_region, inter_zone, intra_zone, google, download, other_egress or other_network; null when not network.
    is_egress BOOLEAN,                     -- Network SKUs: true when the traffic leaves the zone (charged as egress); null when not network.
    extra_fields VARCHAR,                  -- Unknown extra top-level fields of the row, as JSON (kept, never fatal).
    source VARCHAR,                        -- File the row was first read from.
    source_line BIGINT,                    -- Line (NDJSON) or row (Parquet) in that file, 1-based.
    ingested_at TIMESTAMP                  -- When flopledger first loaded the row (UTC).
);
