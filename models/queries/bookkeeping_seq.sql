-- @query: The newest change recorded (0: none yet); a build takes in every change up to it. Never
--   below a build's own through_seq, so that pruning old changes never moves it back.
SELECT greatest(
    coalesce((SELECT max(seq) FROM bookkeeping.changes), 0),
    coalesce((SELECT max(through_seq) FROM bookkeeping.builds), 0)
) AS seq
