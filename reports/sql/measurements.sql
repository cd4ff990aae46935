-- measurements: every evaluation of every campaign, one row each, in the
-- order the strategy proposed them, with the phase times and verification
-- figures. noisy is 1 for a configuration that passed whose timed runs
-- spread widely: their sample standard deviation is more than 10 % of their
-- median (docs/reports.md, "Noisy configurations"); NULL for one that failed.
-- raced is 1 for one that stopped timing early, clearly slower than the
-- campaign's best: n_samples is the runs it made.
-- Parameters: ?1 a campaign id or NULL; ?2 a plugin name or NULL.
SELECT e.campaign_id      AS campaign,
       e.seq              AS seq,
       p.name             AS plugin,
       d.name             AS device,
       pr.text            AS problem,
       cf.text            AS configuration,
       m.status           AS status,
       m.median_ns        AS median_ns,
       m.min_ns           AS min_ns,
       m.max_ns           AS max_ns,
       m.mean_ns          AS mean_ns,
       m.stddev_ns        AS stddev_ns,
       m.ci_low_ns        AS ci_low_ns,
       m.ci_high_ns       AS ci_high_ns,
       m.ci_coverage      AS ci_coverage,
       CASE WHEN m.status = 'ok'
            THEN COALESCE(m.stddev_ns > 0.1 * m.median_ns, 0) END AS noisy,
       m.n_samples        AS n_samples,
       m.raced            AS raced,
       m.gflops           AS gflops,
       m.gbs              AS gbs,
       m.build_s          AS build_s,
       m.verify_s         AS verify_s,
       m.bench_s          AS bench_s,
       m.overhead_s       AS overhead_s,
       m.max_abs_error    AS max_abs_error,
       m.max_rel_error    AS max_rel_error,
       m.first_mismatch   AS first_mismatch,
       e.cached           AS cached,
       m.replayed         AS replayed
FROM evaluations e
JOIN measurements m    ON m.id = e.measurement_id
JOIN plugins p         ON p.id = m.plugin_id
JOIN devices d         ON d.id = m.device_id
JOIN problems pr       ON pr.id = m.problem_id
JOIN configurations cf ON cf.id = m.configuration_id
WHERE (?1 IS NULL OR e.campaign_id = ?1) AND (?2 IS NULL OR p.name = ?2)
ORDER BY e.campaign_id, e.seq;
