-- @query: Alerts, newest first (alerts).
SELECT
    a.raised_at,
    a.severity,
    a.kind,
    a.subject,
    a.title,
    a.message,
    a.notified_at,
    a.alert_id
FROM alerts AS a
ORDER BY a.raised_at DESC, a.alert_id
LIMIT 5000
