-- t4: a campaign's evaluations in the shape of the T4 results format
-- (schema 1.0.0, github.com/odgaard/TuningSchema): one row per evaluation
-- in the strategy's order, with the configuration as a JSON object of typed
-- values (integer, real, else text, as in the config_values view; keys in
-- the order of parameter names), the T4 invalidity of its status, and
-- times in milliseconds: the timed runs (runtimes, a JSON array in run
-- order), the median, and the phases (compilation, verification,
-- benchmark, engine).
-- Parameters: ?1 a campaign id (required); ?2 a plugin name or NULL.
WITH ev AS (
    SELECT e.seq, e.cached, m.*
    FROM evaluations e
    JOIN measurements m    ON m.id = e.measurement_id
    JOIN campaigns c       ON c.id = e.campaign_id
    JOIN plugins p         ON p.id = c.plugin_id
    WHERE e.campaign_id = ?1 AND (?2 IS NULL OR p.name = ?2)
)
SELECT ev.seq                              AS seq,
       ev.measured_at                      AS timestamp,
       (SELECT json_group_object(v.name, v.value) FROM config_values v
        WHERE v.configuration_id = ev.configuration_id)
                                           AS configuration,
       (SELECT cf.text FROM configurations cf WHERE cf.id = ev.configuration_id)
                                           AS configuration_text,
       ev.status                           AS status,
       CASE ev.status WHEN 'ok' THEN 'correct'
                      WHEN 'compile' THEN 'compile'
                      WHEN 'wrong_result' THEN 'correctness'
                      WHEN 'timeout' THEN 'timeout'
                      ELSE 'runtime' END   AS invalidity,
       CASE WHEN ev.status = 'ok' THEN 1 ELSE 0 END AS correctness,
       ev.median_ns / 1e6                  AS time_ms,
       ev.ci_low_ns / 1e6                  AS time_ci_low_ms,
       ev.ci_high_ns / 1e6                 AS time_ci_high_ms,
       ev.ci_coverage                      AS time_ci_coverage,
       ev.gflops                           AS gflops,
       ev.gbs                              AS gbs,
       (SELECT json_group_array(time_ns / 1e6)
        FROM (SELECT s.time_ns FROM samples s WHERE s.measurement_id = ev.id ORDER BY s.run))
                                           AS runtimes_ms,
       ev.build_s * 1e3                    AS compilation_ms,
       ev.verify_s * 1e3                   AS validation_ms,
       ev.bench_s * 1e3                    AS benchmark_ms,
       ev.overhead_s * 1e3                 AS framework_ms,
       ev.cached                           AS cached
FROM ev
ORDER BY ev.seq;
