-- @query: Helpers every model may use (macros, defined once per connection). Money is carried through the allocation as integer
-- nano-units of the reporting currency (HUGEINT), so that shares are exact and the books
-- close to the last digit; it goes back to DECIMAL(38, 9) only at the end.

-- Integer division rounded toward minus infinity (DuckDB's // truncates toward zero).
CREATE OR REPLACE MACRO floor_div(a, b) AS
    (a // b) - CASE WHEN (a % b) <> 0 AND ((a < 0) <> (b < 0)) THEN 1 ELSE 0 END;

-- DECIMAL(38, 9) money to integer nano-units, and back (both exact).
CREATE OR REPLACE MACRO to_nanos(amount) AS CAST(amount * 1000000000 AS HUGEINT);
CREATE OR REPLACE MACRO from_nanos(nanos) AS CAST(nanos AS DECIMAL(38, 0)) * CAST(0.000000001 AS DECIMAL(10, 9));

-- Microseconds between two timestamps.
CREATE OR REPLACE MACRO span_us(a, b) AS CAST(epoch_us(b) - epoch_us(a) AS HUGEINT);

-- Whether a billing credit is a committed-use discount (its `type`; resource-based and spend-based
-- CUDs): what a commitment saved against on-demand.
CREATE OR REPLACE MACRO is_committed_credit(credit_type) AS
    credit_type IN ('COMMITTED_USAGE_DISCOUNT', 'COMMITTED_USAGE_DISCOUNT_DOLLAR_BASE');

-- The FOCUS ServiceCategory of a GCP billing service (service.description).
CREATE OR REPLACE MACRO gcp_service_category(service_name) AS CASE
    WHEN service_name IN ('Compute Engine', 'Kubernetes Engine') THEN 'Compute'
    WHEN service_name = 'Cloud Storage' THEN 'Storage'
    WHEN service_name IN ('Networking', 'Cloud CDN') THEN 'Networking'
    WHEN service_name IN ('Vertex AI', 'Cloud TPU') THEN 'AI and Machine Learning'
    WHEN service_name = 'BigQuery' THEN 'Analytics'
    ELSE 'Other' END;

-- The team a billing row's labels name: its `team` label, else GKE cost allocation's copy of
-- the pods' label (`k8s-label/team`), else the GKE namespace the row was split for
-- (`k8s-namespace`; GKE's own `kube:unallocated` / `kube:system-overhead` are no team).
CREATE OR REPLACE MACRO row_team(labels) AS coalesce(
    labels['team'],
    labels['k8s-label/team'],
    CASE WHEN NOT starts_with(coalesce(labels['k8s-namespace'], 'kube:'), 'kube:') THEN labels['k8s-namespace'] END);

-- One key for one FOCUS resource: AWS bills an EC2 instance under its ARN in some rows and its
-- bare instance id (i-...) in others, so an instance ARN is folded to the instance id it ends in
-- (one instance is one resource, whichever way a row names it). Other ids are kept as written.
CREATE OR REPLACE MACRO focus_resource(resource_id) AS CASE
    WHEN regexp_matches(resource_id, '^arn:aws[a-z-]*:ec2:[^:]*:[^:]*:instance/i-[0-9a-zA-Z]+$')
        THEN regexp_extract(resource_id, '/(i-[0-9a-zA-Z]+)$', 1)
    ELSE resource_id END;
