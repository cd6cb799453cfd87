-- @query: Records a model's build (bookkeeping.builds), replacing its previous record.
-- @param table_name: the model.
-- @param sql_hash: sha256 of its SQL.
-- @param through_seq: the last change the build took in.
-- @param scope: what it rebuilt (whole, nothing, days or runs).
-- @param rows_written: rows it wrote.
MERGE INTO bookkeeping.builds AS b
USING (SELECT $table_name AS table_name) AS n
ON b.table_name = n.table_name
WHEN MATCHED THEN UPDATE SET sql_hash = $sql_hash, through_seq = $through_seq, scope = $scope,
    rows_written = $rows_written, built_at = CAST(current_timestamp AS TIMESTAMP)
WHEN NOT MATCHED THEN INSERT (table_name, sql_hash, through_seq, scope, rows_written, built_at)
    VALUES ($table_name, $sql_hash, $through_seq, $scope, $rows_written, CAST(current_timestamp AS TIMESTAMP))
