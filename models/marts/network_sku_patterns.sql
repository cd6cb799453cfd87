-- @table: The network SKUs as data: one billing SKU description pattern (SQL LIKE, case-insensitive) and what traffic it bills. A billing row is network traffic when its SKU matches a pattern (and the pattern's service, when given); the lowest priority number that matches decides its kind. GCP names egress "Data Transfer Out" today and "Egress" in older exports; Cloud Storage bills internet egress as "Download ...".
-- @col priority: Lower wins when several patterns match one SKU.
-- @col pattern: SKU description pattern (ILIKE: % any text, _ one character).
-- @col service_name: The billing service the pattern is limited to (null: any).
-- @col traffic: internet, inter_region, inter_zone, intra_zone, google, download, other_egress (any other "Data Transfer Out" or "Egress" SKU) or other_network (any other "Network ..." SKU: load balancing, IPs).
-- @col is_egress: True when the traffic leaves the zone (charged as egress); intra-zone traffic is network but not egress.
SELECT priority, pattern, service_name, traffic, is_egress
FROM (VALUES
    (10, 'Network Internet Data Transfer Out%', NULL, 'internet', true),
    (11, 'Network Internet Egress%', NULL, 'internet', true),
    (12, 'Network Egress via Carrier Peering%', NULL, 'internet', true),
    (20, 'Network Inter Region Data Transfer Out%', NULL, 'inter_region', true),
    (21, 'Network Inter Region Egress%', NULL, 'inter_region', true),
    (30, 'Network Inter Zone Data Transfer Out%', NULL, 'inter_zone', true),
    (31, 'Network Inter Zone Egress%', NULL, 'inter_zone', true),
    (40, 'Network Intra Zone%', NULL, 'intra_zone', false),
    (50, 'Network Google Egress%', NULL, 'google', true),
    (51, 'Network Data Transfer Out to Google%', NULL, 'google', true),
    (60, 'Download %', 'Cloud Storage', 'download', true),
    (90, '%Data Transfer Out%', NULL, 'other_egress', true),
    (91, '%Egress%', NULL, 'other_egress', true),
    (95, 'Network %', NULL, 'other_network', false)
) AS t(priority, pattern, service_name, traffic, is_egress)
ORDER BY priority
