-- stop-advice: what the estimate of more evaluations' gain reads from each
-- campaign (framework/core/gain_estimate.h has the estimator and why): its
-- evaluations, those that passed, what is left of its space, and its six
-- fastest median times. What is left is the recorded space's valid count
-- less the evaluations; none when the last run ended with the search
-- complete (the strategy had nothing left to propose), or, for a campaign
-- recorded before runs and spaces were (no invocation), when an exhaustive
-- campaign is done; NULL (unknown) otherwise. The report
-- computes the expected gain of a campaign twice as long from these, as the
-- campaign loop does while it runs; `ended` is how its last run ended
-- ('gain_below' where --stop-when-gain-below ended it) and `gain_below` the
-- fraction that run asked for.
-- Parameters: ?1 a campaign id or NULL; ?2 a plugin name or NULL.
WITH scope AS (
    SELECT c.id
    FROM campaigns c
    JOIN plugins p ON p.id = c.plugin_id
    WHERE (?1 IS NULL OR c.id = ?1) AND (?2 IS NULL OR p.name = ?2)
),
runs AS MATERIALIZED (
    SELECT e.campaign_id, m.status = 'ok' AND m.median_ns > 0 AS passed, m.median_ns
    FROM evaluations e
    JOIN measurements m ON m.id = e.measurement_id
    WHERE e.campaign_id IN scope
),
counts AS (
    SELECT campaign_id, COUNT(*) AS evaluated, SUM(passed) AS passed
    FROM runs
    GROUP BY campaign_id
),
-- The six fastest of each campaign, one column each.
fastest AS (
    SELECT campaign_id,
           MAX(CASE WHEN rank = 1 THEN median_ns END) AS fastest_1,
           MAX(CASE WHEN rank = 2 THEN median_ns END) AS fastest_2,
           MAX(CASE WHEN rank = 3 THEN median_ns END) AS fastest_3,
           MAX(CASE WHEN rank = 4 THEN median_ns END) AS fastest_4,
           MAX(CASE WHEN rank = 5 THEN median_ns END) AS fastest_5,
           MAX(CASE WHEN rank = 6 THEN median_ns END) AS fastest_6
    FROM (SELECT campaign_id, median_ns,
                 row_number() OVER (PARTITION BY campaign_id ORDER BY median_ns) AS rank
          FROM runs
          WHERE passed)
    WHERE rank <= 6
    GROUP BY campaign_id
),
last_run AS (
    SELECT campaign_id, ended, gain_below,
           row_number() OVER (PARTITION BY campaign_id ORDER BY id DESC) AS rank
    FROM invocations
    WHERE campaign_id IN scope
)
SELECT c.id                                  AS campaign,
       COALESCE(n.evaluated, 0)              AS evaluated,
       COALESCE(n.passed, 0)                 AS passed,
       CASE WHEN l.ended = 'search_complete' THEN 0
            WHEN s.valid IS NOT NULL THEN max(0, s.valid - COALESCE(n.evaluated, 0))
            WHEN l.campaign_id IS NULL AND c.strategy = 'exhaustive' AND c.status = 'done' THEN 0
       END                                   AS remaining,
       f.fastest_1, f.fastest_2, f.fastest_3, f.fastest_4, f.fastest_5, f.fastest_6,
       l.ended                               AS ended,
       l.gain_below                          AS gain_below
FROM campaigns c
LEFT JOIN counts n          ON n.campaign_id = c.id
LEFT JOIN fastest f         ON f.campaign_id = c.id
LEFT JOIN campaign_spaces s ON s.campaign_id = c.id
LEFT JOIN last_run l        ON l.campaign_id = c.id AND l.rank = 1
WHERE c.id IN scope
ORDER BY c.id;
