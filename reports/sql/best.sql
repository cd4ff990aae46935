-- best: the best configuration of every campaign (lowest median time among
-- its evaluations with status ok), with its figures and the campaign's
-- counts. Campaigns with no ok evaluation show NULL figures. noisy is 1
-- when the best configuration's timed runs spread widely: their sample
-- standard deviation is more than 10 % of their median (docs/reports.md,
-- "Noisy configurations").
-- ci_low_ns and ci_high_ns bound the best median's confidence interval,
-- which holds it with probability ci_coverage (docs/reports.md,
-- "Intervals"). confirmation and the columns after it: the campaign's latest
-- confirmation of its winner, NULL when none (docs/reports.md,
-- "Confirmation").
-- Parameters: ?1 a campaign id or NULL; ?2 a plugin name or NULL.
WITH ranked AS (
    SELECT e.campaign_id,
           m.id AS measurement_id,
           ROW_NUMBER() OVER (PARTITION BY e.campaign_id ORDER BY m.median_ns, m.id) AS place
    FROM evaluations e
    JOIN measurements m ON m.id = e.measurement_id
    WHERE m.status = 'ok'
),
counts AS (
    SELECT e.campaign_id,
           COUNT(*) AS evaluated,
           SUM(m.status = 'ok') AS ok,
           SUM(m.status <> 'ok') AS failed
    FROM evaluations e
    JOIN measurements m ON m.id = e.measurement_id
    GROUP BY e.campaign_id
)
SELECT c.id                     AS campaign,
       p.name                   AS plugin,
       d.name                   AS device,
       pr.text                  AS problem,
       c.strategy               AS strategy,
       c.status                 AS status,
       COALESCE(n.evaluated, 0) AS evaluated,
       COALESCE(n.ok, 0)        AS ok,
       COALESCE(n.failed, 0)    AS failed,
       cf.text                  AS configuration,
       m.median_ns              AS median_ns,
       m.min_ns                 AS min_ns,
       m.stddev_ns              AS stddev_ns,
       m.ci_low_ns              AS ci_low_ns,
       m.ci_high_ns             AS ci_high_ns,
       m.ci_coverage            AS ci_coverage,
       m.n_samples              AS n_samples,
       CASE WHEN m.id IS NOT NULL
            THEN COALESCE(m.stddev_ns > 0.1 * m.median_ns, 0) END AS noisy,
       m.gflops                 AS gflops,
       m.gbs                    AS gbs,
       m.id                     AS measurement_id,
       cn.id                    AS confirmation,
       cn.top                   AS confirmed_top,
       cn.rounds                AS confirmed_rounds,
       cn.changed               AS confirmation_changed,
       cw.text                  AS confirmed_winner,
       ce.confirmed_median_ns   AS confirmed_median_ns,
       cb.confirmed_median_ns   AS best_confirmed_median_ns
FROM campaigns c
JOIN plugins p              ON p.id = c.plugin_id
JOIN devices d              ON d.id = c.device_id
JOIN problems pr            ON pr.id = c.problem_id
LEFT JOIN counts n          ON n.campaign_id = c.id
LEFT JOIN ranked r          ON r.campaign_id = c.id AND r.place = 1
LEFT JOIN measurements m    ON m.id = r.measurement_id
LEFT JOIN configurations cf ON cf.id = m.configuration_id
-- The campaign's latest confirmation, its winner and their confirmed
-- medians (schema.md, confirmations).
LEFT JOIN confirmations cn  ON cn.id = (SELECT MAX(x.id) FROM confirmations x
                                        WHERE x.campaign_id = c.id)
LEFT JOIN configurations cw ON cw.id = cn.winner_id
LEFT JOIN confirmation_entries ce ON ce.confirmation_id = cn.id
                                 AND ce.configuration_id = cn.winner_id
LEFT JOIN confirmation_entries cb ON cb.confirmation_id = cn.id
                                 AND cb.configuration_id = cn.campaign_best_id
WHERE (?1 IS NULL OR c.id = ?1) AND (?2 IS NULL OR p.name = ?2)
ORDER BY c.id;
