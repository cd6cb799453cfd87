-- @query: One alert raised in [start, end) (UTC), oldest first.
-- @param start: first moment (TIMESTAMP, UTC).
-- @param end: the moment after the last (TIMESTAMP, UTC).
SELECT alert_id, kind, subject, severity, title, message, raised_at, notified_at
FROM alerts
WHERE raised_at >= $start AND raised_at < $end
ORDER BY raised_at, alert_id
