-- @query: One migration of models/migrations/ this warehouse has recorded (applied, or not needed), in the order they run.
SELECT migration, outcome
FROM bookkeeping.migrations
ORDER BY migration
