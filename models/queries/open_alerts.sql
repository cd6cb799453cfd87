-- @query: One alert not yet delivered to every one of its channels, oldest first.
SELECT alert_id, kind, subject, severity, title, message, details, channels, raised_at,
       notified_at, deliveries
FROM alerts
WHERE notified_at IS NULL
ORDER BY raised_at, alert_id
