-- @query: One alert raised at or after a moment (every alert when there is none), oldest first.
-- @param since: the earliest raised_at to include (TIMESTAMP, UTC); NULL for every alert.
SELECT alert_id, kind, subject, severity, title, message, details, channels, raised_at,
       notified_at, deliveries
FROM alerts
WHERE $since IS NULL OR raised_at >= $since
ORDER BY raised_at, alert_id
