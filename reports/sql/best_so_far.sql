-- best-so-far: how each campaign converged. One row for every evaluation
-- that improved on the best median time found before it, and one for the
-- campaign's last evaluation, so the rows trace the whole best-so-far curve
-- however long the campaign was. evaluation counts from 1 in the order the
-- strategy proposed configurations; wall_s is the cumulative time of the
-- campaign's own measurements up to and including it (build + verify +
-- bench + overhead; a reused evaluation adds nothing); best_median_ns is the
-- best so far (NULL until a configuration passes); improved is 1 where the
-- evaluation set a new best, and configuration is then the one that did.
-- Parameters: ?1 a campaign id or NULL; ?2 a plugin name or NULL.
WITH scope AS (
    SELECT c.id
    FROM campaigns c
    JOIN plugins p ON p.id = c.plugin_id
    WHERE (?1 IS NULL OR c.id = ?1) AND (?2 IS NULL OR p.name = ?2)
),
ev AS (
    SELECT e.campaign_id,
           e.seq,
           m.configuration_id,
           CASE WHEN m.status = 'ok' THEN m.median_ns END AS ok_ns,
           CASE WHEN e.cached = 1 THEN 0.0
                ELSE m.build_s + m.verify_s + m.bench_s + m.overhead_s END AS cost_s
    FROM evaluations e
    JOIN measurements m ON m.id = e.measurement_id
    WHERE e.campaign_id IN scope
),
running AS (
    SELECT campaign_id, seq, configuration_id, ok_ns,
           ROW_NUMBER() OVER w AS evaluation,
           SUM(cost_s) OVER w AS wall_s,
           MIN(ok_ns) OVER w AS best_ns
    FROM ev
    WINDOW w AS (PARTITION BY campaign_id ORDER BY seq ROWS UNBOUNDED PRECEDING)
),
-- An evaluation improved when it is the first to reach the running best.
-- (SQLite gives the other columns of the row where MIN(seq) was found.)
improvements AS (
    SELECT campaign_id, MIN(seq) AS seq, evaluation, wall_s, best_ns, configuration_id
    FROM running
    WHERE ok_ns = best_ns
    GROUP BY campaign_id, best_ns
),
last AS (
    SELECT campaign_id, MAX(seq) AS seq, COUNT(*) AS evaluation, SUM(cost_s) AS wall_s,
           MIN(ok_ns) AS best_ns
    FROM ev
    GROUP BY campaign_id
),
steps AS (
    SELECT campaign_id, evaluation, seq, wall_s, best_ns, 1 AS improved, configuration_id
    FROM improvements
    UNION ALL
    SELECT l.campaign_id, l.evaluation, l.seq, l.wall_s, l.best_ns, 0, NULL
    FROM last l
    WHERE NOT EXISTS (SELECT 1 FROM improvements i
                      WHERE i.campaign_id = l.campaign_id AND i.seq = l.seq)
)
SELECT s.campaign_id   AS campaign,
       s.evaluation    AS evaluation,
       s.seq           AS seq,
       s.wall_s        AS wall_s,
       s.best_ns       AS best_median_ns,
       s.improved      AS improved,
       cf.text         AS configuration
FROM steps s
LEFT JOIN configurations cf ON cf.id = s.configuration_id
ORDER BY s.campaign_id, s.seq;
