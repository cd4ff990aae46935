-- instances: the best configuration of every problem instance a plugin was
-- measured on, across all its campaigns (Sclocco et al., figs. 2-5): one row
-- per (plugin build, device, problem) with its fastest configuration with
-- status ok (of equally fast ones, the first in configuration id order),
-- that configuration's figures, how many configurations were measured there
-- and by which campaigns. noisy is 1 when that configuration's timed runs
-- spread widely: their sample standard deviation is more than 10 % of their
-- median (docs/reports.md, "Noisy configurations").
-- Parameters: ?1 a campaign id (its plugin) or NULL; ?2 a plugin name or NULL.
WITH plugin_scope AS (
    SELECT p.id
    FROM plugins p
    WHERE (?2 IS NULL OR p.name = ?2)
      AND (?1 IS NULL OR p.name IN (SELECT p2.name FROM campaigns c
                                    JOIN plugins p2 ON p2.id = c.plugin_id WHERE c.id = ?1))
),
-- One pass in the order of the measurements' unique index (plugin build,
-- device, problem, ...), so grouping needs no sort. best_id is the
-- measurement where the lowest median of status ok was found (SQLite takes
-- a bare column from the row that gave MIN), NULL when none passed.
counted AS (
    SELECT plugin_id, device_id, problem_id,
           COUNT(*)                                        AS measured,
           SUM(status = 'ok')                              AS ok,
           group_concat(DISTINCT campaign_id)              AS campaigns,
           MIN(CASE WHEN status = 'ok' THEN median_ns END) AS best_ns,
           id                                              AS best_id
    FROM measurements
    WHERE plugin_id IN plugin_scope
    GROUP BY plugin_id, device_id, problem_id
)
SELECT p.name             AS plugin,
       p.version          AS plugin_version,
       d.name             AS device,
       d.platform         AS platform,
       pr.text            AS problem,
       cf.text            AS configuration,
       r.median_ns        AS median_ns,
       r.min_ns           AS min_ns,
       r.stddev_ns        AS stddev_ns,
       r.ci_low_ns        AS ci_low_ns,
       r.ci_high_ns       AS ci_high_ns,
       r.ci_coverage      AS ci_coverage,
       CASE WHEN r.id IS NOT NULL
            THEN COALESCE(r.stddev_ns > 0.1 * r.median_ns, 0) END AS noisy,
       r.gflops           AS gflops,
       r.gbs              AS gbs,
       n.measured         AS measured,
       n.ok               AS ok,
       n.campaigns        AS campaigns
FROM counted n
JOIN plugins p              ON p.id = n.plugin_id
JOIN devices d              ON d.id = n.device_id
JOIN problems pr            ON pr.id = n.problem_id
LEFT JOIN measurements r    ON r.id = n.best_id AND n.best_ns IS NOT NULL
LEFT JOIN configurations cf ON cf.id = r.configuration_id
ORDER BY p.name, p.version, d.name, pr.id;
