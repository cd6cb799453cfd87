-- @query: Effective cost by credit type over the billing rows in the explorer's filters whose
--   usage day is in [$start_day, $end_day]: each row's billed cost as '(billed cost)' plus each
--   of its credits under its type. A row's USD credits (credits_total_usd) are shared over its
--   credits by their amounts with cumulative floors in nano-USD, so the types add up to the
--   row's effective cost exactly. Run-owner filters do not apply (a credit is on the whole
--   row).
-- @param end_day: the range's last UTC day (DATE, inclusive)
-- @param start_day: the range's first UTC day (DATE, inclusive)
WITH chosen AS (
    SELECT b.*
    FROM billing_line_items AS b
    WHERE b.row_id IN (SELECT e.row_id FROM explorer_in_filters AS e)
      AND b.usage_day BETWEEN CAST($start_day AS DATE) AND CAST($end_day AS DATE)
),
credits AS (
    SELECT
        c.row_id,
        to_nanos(c.credits_total_usd) AS total_nanos,
        u.credit.type AS credit_type,
        to_nanos(u.credit.amount) AS amount_nanos,
        u.i
    FROM chosen AS c,
         (SELECT unnest(c.credits) AS credit, generate_subscripts(c.credits, 1) AS i) AS u
),
cumulative AS (
    SELECT
        *,
        sum(amount_nanos) OVER (PARTITION BY row_id ORDER BY i ROWS UNBOUNDED PRECEDING) AS upto,
        sum(amount_nanos) OVER (PARTITION BY row_id) AS all_amounts,
        count(*) OVER (PARTITION BY row_id) AS n
    FROM credits
),
parts AS (
    SELECT '(billed cost)' AS group_value, to_nanos(cost_usd) AS nanos FROM chosen
    UNION ALL
    SELECT
        coalesce(credit_type, '(none)'),
        CASE WHEN all_amounts <> 0
             THEN floor_div(total_nanos * upto, all_amounts) - floor_div(total_nanos * (upto - amount_nanos), all_amounts)
             ELSE floor_div(total_nanos * i, n) - floor_div(total_nanos * (i - 1), n)
        END
    FROM cumulative
    UNION ALL
    -- USD credits on a row that lists no credit (should not happen; kept so the total closes).
    SELECT '(unlisted credits)', to_nanos(credits_total_usd)
    FROM chosen
    WHERE coalesce(array_length(credits), 0) = 0 AND credits_total_usd <> 0
)
SELECT group_value, from_nanos(sum(nanos)) AS effective_cost
FROM parts
GROUP BY group_value
ORDER BY effective_cost, group_value
