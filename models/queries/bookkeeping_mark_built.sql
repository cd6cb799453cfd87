-- @query: Records a model's build (bookkeeping.builds), after bookkeeping_forget_build removed its
--   previous record.
-- @param table_name: the model.
-- @param sql_hash: sha256 of its SQL.
-- @param through_seq: the last change the build took in.
-- @param scope: what it rebuilt (whole, nothing, days or runs).
-- @param rows_written: rows it wrote.
INSERT INTO bookkeeping.builds (table_name, sql_hash, through_seq, scope, rows_written, built_at)
VALUES ($table_name, $sql_hash, $through_seq, $scope, $rows_written, CAST(current_timestamp AS TIMESTAMP))
