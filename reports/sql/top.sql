-- top: each campaign's fastest configurations (lowest median time among its
-- evaluations with status ok), place 1 being the campaign's best, with their
-- statistics, throughput and how close each comes to the best
-- (relative = best median / this median, 1 for the best). noisy is 1 when
-- the configuration's timed runs spread widely: their sample standard
-- deviation is more than 10 % of their median (docs/reports.md, "Noisy
-- configurations"). raced is 1 for one that stopped timing early (racing,
-- never one of the best 5): n_samples is the runs it made. ci_low_ns and
-- ci_high_ns bound the median's confidence interval, which holds it with
-- probability ci_coverage (docs/reports.md, "Intervals").
-- Parameters: ?1 a campaign id or NULL; ?2 a plugin name or NULL;
-- ?3 how many per campaign (NULL: 20).
WITH scope AS (
    SELECT c.id
    FROM campaigns c
    JOIN plugins p ON p.id = c.plugin_id
    WHERE (?1 IS NULL OR c.id = ?1) AND (?2 IS NULL OR p.name = ?2)
),
-- The n-th best median of each campaign, found with a bounded sort, so
-- that only its top rows are ranked.
cutoff AS MATERIALIZED (
    SELECT s.id AS campaign_id,
           (SELECT m.median_ns
            FROM evaluations e
            JOIN measurements m ON m.id = e.measurement_id
            WHERE e.campaign_id = s.id AND m.status = 'ok'
            ORDER BY m.median_ns
            LIMIT 1 OFFSET COALESCE(CAST(?3 AS INTEGER), 20) - 1) AS worst_ns
    FROM scope s
),
ranked AS (
    SELECT e.campaign_id,
           e.seq,
           e.cached,
           m.id AS measurement_id,
           m.configuration_id,
           m.median_ns,
           ROW_NUMBER() OVER (PARTITION BY e.campaign_id ORDER BY m.median_ns, m.id) AS place,
           MIN(m.median_ns) OVER (PARTITION BY e.campaign_id) AS best_ns
    FROM evaluations e
    JOIN measurements m ON m.id = e.measurement_id
    JOIN cutoff k       ON k.campaign_id = e.campaign_id
    WHERE m.status = 'ok' AND (k.worst_ns IS NULL OR m.median_ns <= k.worst_ns)
)
SELECT r.campaign_id             AS campaign,
       r.place                   AS place,
       cf.text                   AS configuration,
       m.median_ns               AS median_ns,
       m.min_ns                  AS min_ns,
       m.max_ns                  AS max_ns,
       m.stddev_ns               AS stddev_ns,
       m.ci_low_ns               AS ci_low_ns,
       m.ci_high_ns              AS ci_high_ns,
       m.ci_coverage             AS ci_coverage,
       COALESCE(m.stddev_ns > 0.1 * m.median_ns, 0) AS noisy,
       m.n_samples               AS n_samples,
       m.raced                   AS raced,
       m.gflops                  AS gflops,
       m.gbs                     AS gbs,
       r.best_ns / m.median_ns   AS relative,
       r.seq + 1                 AS evaluation,
       r.seq                     AS seq,
       r.cached                  AS cached,
       r.measurement_id          AS measurement_id
FROM ranked r
JOIN measurements m    ON m.id = r.measurement_id
JOIN configurations cf ON cf.id = r.configuration_id
WHERE r.place <= COALESCE(CAST(?3 AS INTEGER), 20)
ORDER BY r.campaign_id, r.place;
