-- evaluations: every evaluation of each campaign as a point of the
-- convergence chart: its number (from 1, in the order the strategy proposed
-- configurations), the cumulative wall time of the campaign's own
-- measurements up to it (as in best-so-far), its status, and its median
-- time when it passed (NULL otherwise). A campaign of more than 1000
-- evaluations would make a chart of that many points, so its evaluations
-- are merged into cells instead: 100 columns of consecutive evaluations,
-- and within a column, evaluations of one status whose times lie within a
-- quarter of a factor e of each other (failed ones by status alone). A cell
-- is one row, at the mean evaluation number and wall time and the geometric
-- mean time of its evaluations, with how many it holds. (On the benchmark's
-- 10^5 evaluations, bench/bench_report, that is about 2000 rows, where finer
-- cells would make the report's file megabytes long.)
-- Parameters: ?1 a campaign id or NULL; ?2 a plugin name or NULL.
WITH scope AS (
    SELECT c.id
    FROM campaigns c
    JOIN plugins p ON p.id = c.plugin_id
    WHERE (?1 IS NULL OR c.id = ?1) AND (?2 IS NULL OR p.name = ?2)
),
ev AS (
    SELECT e.campaign_id,
           m.status,
           CASE WHEN m.status = 'ok' THEN m.median_ns END AS median_ns,
           CASE WHEN m.status = 'ok' AND m.median_ns > 0 THEN ln(m.median_ns) END AS log_ns,
           ROW_NUMBER() OVER w AS evaluation,
           SUM(CASE WHEN e.cached = 1 THEN 0.0
                    ELSE m.build_s + m.verify_s + m.bench_s + m.overhead_s END) OVER w AS wall_s,
           COUNT(*) OVER (PARTITION BY e.campaign_id) AS total
    FROM evaluations e
    JOIN measurements m ON m.id = e.measurement_id
    WHERE e.campaign_id IN scope
    WINDOW w AS (PARTITION BY e.campaign_id ORDER BY e.seq ROWS UNBOUNDED PRECEDING)
),
cells AS (
    SELECT campaign_id,
           status,
           -- A cell of one evaluation keeps its own figures exactly.
           CASE WHEN COUNT(*) = 1 THEN MIN(evaluation) ELSE AVG(evaluation) END AS evaluation,
           CASE WHEN COUNT(*) = 1 THEN MIN(wall_s) ELSE AVG(wall_s) END         AS wall_s,
           CASE WHEN COUNT(*) = 1 THEN MIN(median_ns) ELSE exp(AVG(log_ns)) END AS median_ns,
           COUNT(*) AS evaluations
    FROM ev
    GROUP BY campaign_id,
             CASE WHEN total <= 1000 THEN evaluation ELSE (evaluation - 1) * 100 / total END,
             status,
             CAST(round(log_ns * 4) AS INTEGER)
)
SELECT campaign_id  AS campaign,
       evaluation   AS evaluation,
       wall_s       AS wall_s,
       status       AS status,
       median_ns    AS median_ns,
       evaluations  AS evaluations
FROM cells
ORDER BY campaign_id, evaluation, status;
