-- stop-advice: what the estimate of more evaluations' gain reads from each
-- campaign (framework/core/gain_estimate.h has the estimator and why): its
-- evaluations, those that passed, what is left of its space (NULL when the
-- space was not recorded), and its six fastest median times. The report
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
runs AS (
    SELECT e.campaign_id, m.status, m.median_ns
    FROM evaluations e
    JOIN measurements m ON m.id = e.measurement_id
    WHERE e.campaign_id IN scope
),
fastest AS (
    SELECT campaign_id, median_ns,
           row_number() OVER (PARTITION BY campaign_id ORDER BY median_ns) AS rank
    FROM runs
    WHERE status = 'ok' AND median_ns > 0
),
last_run AS (
    SELECT campaign_id, ended, gain_below,
           row_number() OVER (PARTITION BY campaign_id ORDER BY id DESC) AS rank
    FROM invocations
    WHERE campaign_id IN scope
)
SELECT c.id                                                          AS campaign,
       (SELECT COUNT(*) FROM runs r WHERE r.campaign_id = c.id)      AS evaluated,
       (SELECT COUNT(*) FROM runs r WHERE r.campaign_id = c.id
                                      AND r.status = 'ok' AND r.median_ns > 0) AS passed,
       max(0, s.valid - (SELECT COUNT(*) FROM runs r WHERE r.campaign_id = c.id)) AS remaining,
       (SELECT median_ns FROM fastest f WHERE f.campaign_id = c.id AND rank = 1) AS fastest_1,
       (SELECT median_ns FROM fastest f WHERE f.campaign_id = c.id AND rank = 2) AS fastest_2,
       (SELECT median_ns FROM fastest f WHERE f.campaign_id = c.id AND rank = 3) AS fastest_3,
       (SELECT median_ns FROM fastest f WHERE f.campaign_id = c.id AND rank = 4) AS fastest_4,
       (SELECT median_ns FROM fastest f WHERE f.campaign_id = c.id AND rank = 5) AS fastest_5,
       (SELECT median_ns FROM fastest f WHERE f.campaign_id = c.id AND rank = 6) AS fastest_6,
       l.ended                                                       AS ended,
       l.gain_below                                                  AS gain_below
FROM campaigns c
LEFT JOIN campaign_spaces s ON s.campaign_id = c.id
LEFT JOIN last_run l ON l.campaign_id = c.id AND l.rank = 1
WHERE c.id IN scope
ORDER BY c.id;
