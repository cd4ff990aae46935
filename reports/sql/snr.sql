-- snr: how far each campaign's optimum lies from its typical configuration
-- (Sclocco et al., figs. 8-9). Over the configurations with status ok, with
-- performance as in distribution.sql (GFLOP/s, else runs per second): their
-- number, mean, standard deviation (population: the configurations measured
-- are the whole set the bound speaks of) and the optimum; snr, the
-- optimum's distance from the mean in standard deviations, k; Chebyshev's
-- bound 1/k^2 on the share of configurations at least k standard deviations
-- from the mean, which bounds the chance of hitting such a configuration by
-- guessing; and the share that actually is. snr is NULL when every
-- configuration performs alike. Parameters: ?1 a campaign id or NULL; ?2 a
-- plugin name or NULL.
WITH scope AS (
    SELECT c.id
    FROM campaigns c
    JOIN plugins p ON p.id = c.plugin_id
    WHERE (?1 IS NULL OR c.id = ?1) AND (?2 IS NULL OR p.name = ?2)
),
-- Each pass reads the campaign's evaluations in key order, so grouping by
-- campaign needs no sort; the first pass computes the figures of both
-- metrics, since which one applies is only known at its end.
first_pass AS MATERIALIZED (
    SELECT e.campaign_id,
           COUNT(*) = COUNT(m.gflops) AS by_gflops,
           COUNT(*)                   AS n,
           AVG(m.gflops)              AS mean_gflops,
           MAX(m.gflops)              AS max_gflops,
           AVG(1e9 / m.median_ns)     AS mean_rate,
           MAX(1e9 / m.median_ns)     AS max_rate
    FROM evaluations e
    JOIN measurements m ON m.id = e.measurement_id
    WHERE e.campaign_id IN scope AND m.status = 'ok' AND m.median_ns > 0
    GROUP BY e.campaign_id
),
mean AS MATERIALIZED (
    SELECT campaign_id, by_gflops, n,
           CASE WHEN by_gflops THEN mean_gflops ELSE mean_rate END AS mean,
           CASE WHEN by_gflops THEN max_gflops ELSE max_rate END AS optimum
    FROM first_pass
),
spread AS MATERIALIZED (
    SELECT a.campaign_id,
           sqrt(AVG((CASE WHEN a.by_gflops THEN m.gflops ELSE 1e9 / m.median_ns END - a.mean)
                  * (CASE WHEN a.by_gflops THEN m.gflops ELSE 1e9 / m.median_ns END - a.mean)))
               AS sd
    FROM mean a
    JOIN evaluations e  ON e.campaign_id = a.campaign_id
    JOIN measurements m ON m.id = e.measurement_id
    WHERE m.status = 'ok' AND m.median_ns > 0
    GROUP BY a.campaign_id
),
k AS MATERIALIZED (
    SELECT a.*, s.sd, CASE WHEN s.sd > 0 THEN (a.optimum - a.mean) / s.sd END AS snr
    FROM mean a
    JOIN spread s ON s.campaign_id = a.campaign_id
),
far AS (
    SELECT k.campaign_id,
           SUM(abs(CASE WHEN k.by_gflops THEN m.gflops ELSE 1e9 / m.median_ns END - k.mean)
               >= k.snr * k.sd * (1 - 1e-12)) AS n_far
    FROM k
    JOIN evaluations e  ON e.campaign_id = k.campaign_id
    JOIN measurements m ON m.id = e.measurement_id
    WHERE m.status = 'ok' AND m.median_ns > 0 AND k.snr > 0
    GROUP BY k.campaign_id
)
SELECT k.campaign_id                                            AS campaign,
       CASE WHEN k.by_gflops THEN 'GFLOP/s' ELSE 'runs/s' END   AS metric,
       k.n                                                      AS configurations,
       k.mean                                                   AS mean,
       k.sd                                                     AS sd,
       k.optimum                                                AS optimum,
       k.snr                                                    AS snr,
       CASE WHEN k.snr > 0 THEN MIN(1.0, 1.0 / (k.snr * k.snr)) END AS chebyshev_bound,
       CASE WHEN k.snr > 0 THEN f.n_far * 1.0 / k.n END        AS observed_share
FROM k
LEFT JOIN far f ON f.campaign_id = k.campaign_id
ORDER BY k.campaign_id;
