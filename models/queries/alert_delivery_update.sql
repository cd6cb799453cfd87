-- @query: Updates one alert's delivery record (returns no rows): its per-channel deliveries,
--   and notified_at once every channel has it.
-- @param alert_id: the alert to update.
-- @param deliveries: per channel: delivered_at, attempts, next_attempt_at, last_error (JSON).
-- @param notified_at: when the last channel was delivered (TIMESTAMP, UTC); NULL while any waits.
UPDATE alerts
SET deliveries = $deliveries, notified_at = $notified_at
WHERE alert_id = $alert_id
