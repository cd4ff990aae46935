-- fixed-vs-tuned: what tuning every instance gains over the best fixed
-- configuration (Sclocco et al., figs. 13-14). Per plugin and device, the
-- instances are its (plugin build, problem) pairs with a configuration of
-- status ok; the candidates are the configurations measured ok on every one
-- of them. The best fixed configuration maximises the summed performance
-- over the instances: summed GFLOP/s when the plugin counted FLOPs for every
-- measurement involved (basis 'gflops', as in the paper), otherwise the sum
-- over instances of the instance's best median time / this configuration's
-- median time (basis 'relative': 1/time normalised so every instance
-- weighs the same). Per instance: its tuned optimum, the fixed
-- configuration's time there, and speedup = fixed median / tuned median
-- (>= 1). Fixed columns are NULL where no configuration passed on every
-- instance. Of equally good configurations the first in id order counts.
-- Parameters: ?1 a campaign id (its plugin) or NULL; ?2 a plugin name or NULL.
WITH plugin_scope AS (
    SELECT p.id
    FROM plugins p
    WHERE (?2 IS NULL OR p.name = ?2)
      AND (?1 IS NULL OR p.name IN (SELECT p2.name FROM campaigns c
                                    JOIN plugins p2 ON p2.id = c.plugin_id WHERE c.id = ?1))
),
-- Each instance's optimum, in one pass in the order of the measurements'
-- unique index (plugin build, device, problem, configuration), so grouping
-- needs no sort; SQLite takes the bare columns from the row that gave MIN.
per_build AS MATERIALIZED (
    SELECT m.plugin_id, m.device_id, m.problem_id,
           MIN(m.median_ns)            AS best_ns,
           m.id                        AS measurement_id,
           COUNT(*) = COUNT(m.gflops)  AS all_gflops
    FROM measurements m
    WHERE m.plugin_id IN plugin_scope AND m.status = 'ok' AND m.median_ns > 0
    GROUP BY m.plugin_id, m.device_id, m.problem_id
),
instances AS MATERIALIZED (
    SELECT p.name AS plugin, b.*
    FROM per_build b
    JOIN plugins p ON p.id = b.plugin_id
),
groups AS MATERIALIZED (
    SELECT plugin, device_id, COUNT(*) AS instances, MIN(all_gflops) AS by_gflops
    FROM instances
    GROUP BY plugin, device_id
),
candidates AS MATERIALIZED (
    SELECT i.plugin, i.device_id, m.configuration_id,
           COUNT(*) AS covered,
           SUM(CASE WHEN g.by_gflops THEN m.gflops ELSE i.best_ns / m.median_ns END) AS score
    FROM instances i
    JOIN groups g       ON g.plugin = i.plugin AND g.device_id = i.device_id
    JOIN measurements m ON m.plugin_id = i.plugin_id AND m.device_id = i.device_id
                       AND m.problem_id = i.problem_id
    WHERE m.status = 'ok' AND m.median_ns > 0
    GROUP BY i.plugin, i.device_id, m.configuration_id
),
-- The candidate with the largest score (SQLite takes configuration_id from
-- the row that gave MAX; of equal scores, the first in configuration id
-- order).
fixed AS (
    SELECT c.plugin, c.device_id, MAX(c.score) AS score, c.configuration_id,
           COUNT(*) AS candidates
    FROM candidates c
    JOIN groups g ON g.plugin = c.plugin AND g.device_id = c.device_id
    WHERE c.covered = g.instances
    GROUP BY c.plugin, c.device_id
)
SELECT i.plugin                                       AS plugin,
       p.version                                      AS plugin_version,
       d.name                                         AS device,
       pr.text                                        AS problem,
       tc.text                                        AS tuned_configuration,
       tm.median_ns                                   AS tuned_median_ns,
       tm.gflops                                      AS tuned_gflops,
       fc.text                                        AS fixed_configuration,
       fm.median_ns                                   AS fixed_median_ns,
       fm.gflops                                      AS fixed_gflops,
       fm.median_ns / tm.median_ns                    AS speedup,
       CASE WHEN g.by_gflops THEN 'gflops' ELSE 'relative' END AS basis,
       f.score                                        AS fixed_score,
       g.instances                                    AS instances,
       COALESCE(f.candidates, 0)                      AS candidates
FROM instances i
JOIN groups g               ON g.plugin = i.plugin AND g.device_id = i.device_id
JOIN plugins p              ON p.id = i.plugin_id
JOIN devices d              ON d.id = i.device_id
JOIN problems pr            ON pr.id = i.problem_id
JOIN measurements tm        ON tm.id = i.measurement_id
JOIN configurations tc      ON tc.id = tm.configuration_id
LEFT JOIN fixed f           ON f.plugin = i.plugin AND f.device_id = i.device_id
LEFT JOIN measurements fm   ON fm.plugin_id = i.plugin_id AND fm.device_id = i.device_id
                           AND fm.problem_id = i.problem_id
                           AND fm.configuration_id = f.configuration_id
LEFT JOIN configurations fc ON fc.id = f.configuration_id
ORDER BY i.plugin, d.name, p.version, pr.id;
