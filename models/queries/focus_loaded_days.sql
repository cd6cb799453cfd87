-- @query: Every loaded focus_line_items row's UTC day and line_item_id (a hash of all its
--   values), so a run can tell which days its FOCUS files hold differently (a restated month,
--   late rows, a changed EffectiveCost or tag) and which they no longer hold.
SELECT charge_day AS day, line_item_id
FROM focus_line_items
