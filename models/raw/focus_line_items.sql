-- @table: One row of a FOCUS 1.0/1.1/1.2 cost and usage dataset (CSV or Parquet, any provider), columns in snake_case. A row read twice is stored once; rows that break the spec but read clearly load with spec_issues set.
-- @grain day: charge_period_start .. charge_period_end
-- @check focus_rows_follow_spec (warn): Every FOCUS row loaded follows the specification (else spec_issues says why).
CREATE TABLE IF NOT EXISTS focus_line_items (
    line_item_id VARCHAR NOT NULL, -- Hash of every value the row carries: the same row read twice is one row.
    charge_day DATE NOT NULL, -- UTC day of charge_period_start: the partition.
    availability_zone VARCHAR, -- AvailabilityZone: Provider-assigned availability zone.
    billed_cost DECIMAL(38, 12) NOT NULL, -- BilledCost: Cost invoiced for the row, in BillingCurrency, every decimal the file carries.
    billing_account_id VARCHAR, -- BillingAccountId: Billing account the row is invoiced to.
    billing_account_name VARCHAR, -- BillingAccountName: Display name of the billing account.
    billing_account_type VARCHAR, -- BillingAccountType: Provider's name for the billing account's kind (FOCUS 1.2).
    billing_currency VARCHAR NOT NULL, -- BillingCurrency: ISO 4217 currency of the billed, effective, list and contracted costs.
    billing_period_end TIMESTAMP, -- BillingPeriodEnd: End of the billing period (UTC, exclusive).
    billing_period_start TIMESTAMP, -- BillingPeriodStart: Start of the billing period (UTC).
    capacity_reservation_id VARCHAR, -- CapacityReservationId: Capacity reservation the row relates to (FOCUS 1.1).
    capacity_reservation_status VARCHAR, -- CapacityReservationStatus: Used or Unused capacity reservation (FOCUS 1.1).
    charge_category VARCHAR NOT NULL, -- ChargeCategory: Usage, Purchase, Tax, Credit or Adjustment.
    charge_class VARCHAR, -- ChargeClass: Correction for a correction of an earlier period; else null.
    charge_description VARCHAR, -- ChargeDescription: Provider's description of the charge.
    charge_frequency VARCHAR, -- ChargeFrequency: One-Time, Recurring or Usage-Based (a value in another case is read as the allowed one and flagged).
    charge_period_end TIMESTAMP NOT NULL, -- ChargePeriodEnd: End of the charge period (UTC, exclusive).
    charge_period_start TIMESTAMP NOT NULL, -- ChargePeriodStart: Start of the charge period (UTC); its day places the row.
    commitment_discount_category VARCHAR, -- CommitmentDiscountCategory: Spend or Usage commitment.
    commitment_discount_id VARCHAR, -- CommitmentDiscountId: Commitment discount (savings plan, reservation, CUD) the row relates to.
    commitment_discount_name VARCHAR, -- CommitmentDiscountName: Display name of the commitment discount.
    commitment_discount_quantity DECIMAL(38, 15), -- CommitmentDiscountQuantity: Amount of the commitment used or purchased, in CommitmentDiscountUnit (FOCUS 1.1).
    commitment_discount_status VARCHAR, -- CommitmentDiscountStatus: Used or Unused: whether the commitment covered usage in the period.
    commitment_discount_type VARCHAR, -- CommitmentDiscountType: Provider's label for the commitment kind.
    commitment_discount_unit VARCHAR, -- CommitmentDiscountUnit: Unit of CommitmentDiscountQuantity (FOCUS 1.1).
    consumed_quantity DECIMAL(38, 15), -- ConsumedQuantity: Usage measured, in ConsumedUnit.
    consumed_unit VARCHAR, -- ConsumedUnit: Unit of ConsumedQuantity.
    contracted_cost DECIMAL(38, 12), -- ContractedCost: Cost at the negotiated unit price, in BillingCurrency.
    contracted_unit_price DECIMAL(38, 12), -- ContractedUnitPrice: Negotiated unit price, in BillingCurrency.
    effective_cost DECIMAL(38, 12), -- EffectiveCost: Amortised cost after discounts and commitments, in BillingCurrency.
    invoice_id VARCHAR, -- InvoiceId: Invoice the row is part of (FOCUS 1.2).
    invoice_issuer_name VARCHAR, -- InvoiceIssuerName: Who issued the invoice (provider or reseller).
    list_cost DECIMAL(38, 12), -- ListCost: Cost at the public list price, in BillingCurrency.
    list_unit_price DECIMAL(38, 12), -- ListUnitPrice: Public list unit price, in BillingCurrency.
    pricing_category VARCHAR, -- PricingCategory: Standard, Dynamic, Committed or Other.
    pricing_currency VARCHAR, -- PricingCurrency: Currency the prices were set in (FOCUS 1.2).
    pricing_currency_contracted_unit_price DECIMAL(38, 12), -- PricingCurrencyContractedUnitPrice: Contracted unit price in PricingCurrency (FOCUS 1.2).
    pricing_currency_effective_cost DECIMAL(38, 12), -- PricingCurrencyEffectiveCost: Effective cost in PricingCurrency (FOCUS 1.2).
    pricing_currency_list_unit_price DECIMAL(38, 12), -- PricingCurrencyListUnitPrice: List unit price in PricingCurrency (FOCUS 1.2).
    pricing_quantity DECIMAL(38, 15), -- PricingQuantity: Quantity priced, in PricingUnit.
    pricing_unit VARCHAR, -- PricingUnit: Unit of PricingQuantity.
    provider_name VARCHAR NOT NULL, -- ProviderName: Provider as the file writes it (AWS, Microsoft, Oracle, Google Cloud ...).
    publisher_name VARCHAR, -- PublisherName: Who published the service (provider or marketplace vendor).
    region_id VARCHAR, -- RegionId: Provider region id (us-west-2, eastus ...).
    region_name VARCHAR, -- RegionName: Region display name.
    resource_id VARCHAR, -- ResourceId: Provider's resource id (an instance id, an ARN, an Azure resource path): joins job placements.
    resource_name VARCHAR, -- ResourceName: Resource display name.
    resource_type VARCHAR, -- ResourceType: Provider's resource kind.
    service_category VARCHAR, -- ServiceCategory: FOCUS service category (Compute, Storage, AI and Machine Learning ...).
    service_name VARCHAR, -- ServiceName: Provider's service name.
    service_subcategory VARCHAR, -- ServiceSubcategory: FOCUS service subcategory (FOCUS 1.1).
    sku_id VARCHAR, -- SkuId: Provider SKU id.
    sku_meter VARCHAR, -- SkuMeter: What the SKU meters (FOCUS 1.1).
    sku_price_details VARCHAR, -- SkuPriceDetails: The SKU's price properties as JSON text (FOCUS 1.1).
    sku_price_id VARCHAR, -- SkuPriceId: Provider SKU price id.
    sub_account_id VARCHAR, -- SubAccountId: Sub-account (AWS account, Azure subscription, OCI compartment).
    sub_account_name VARCHAR, -- SubAccountName: Sub-account display name.
    sub_account_type VARCHAR, -- SubAccountType: Provider's name for the sub-account's kind (FOCUS 1.2).
    tags VARCHAR, -- Tags: Tags as JSON text (an object), as the file writes them.
    x_columns VARCHAR, -- Every column the file has beyond FOCUS's (provider x_ columns and others), as a JSON object of text.
    instance_type VARCHAR, -- The GPU instance type the row names (ChargeDescription, SkuMeter, SkuPriceDetails, ResourceType, SkuId or an x_ column), from accelerators/instances.py; null when none.
    accelerator_type VARCHAR, -- Canonical accelerator type of that instance (accelerators/table.py), e.g. H100-80GB.
    accelerator_count BIGINT, -- Accelerators one such instance holds (8 for p5.48xlarge).
    focus_version VARCHAR NOT NULL, -- FOCUS version the file's columns fit: 1.0, 1.1 or 1.2.
    spec_issues VARCHAR, -- Where the row breaks the spec but reads clearly, why ('; '-joined); null when clean.
    source_file VARCHAR, -- File the row came from.
    source_line BIGINT -- Line (CSV) or row (Parquet) in that file.
);
