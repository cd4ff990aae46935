-- time-split: where each campaign's time went (Kis, table 7.4): seconds in
-- the OpenCL compiler (build), verification against the CPU reference,
-- timed runs (warm-up included) and the engine's own work, summed over the
-- measurements the campaign made itself (evaluations reused from earlier
-- campaigns cost it nothing), with each phase's share of their total.
-- elapsed_s is started_at to ended_at, which also holds the campaign's
-- set-up and, for a resumed campaign, the pauses between its runs.
-- Parameters: ?1 a campaign id or NULL; ?2 a plugin name or NULL.
WITH scope AS (
    SELECT c.id
    FROM campaigns c
    JOIN plugins p ON p.id = c.plugin_id
    WHERE (?1 IS NULL OR c.id = ?1) AND (?2 IS NULL OR p.name = ?2)
),
phases AS (
    SELECT e.campaign_id,
           COUNT(*)          AS measured,
           SUM(m.build_s)    AS build_s,
           SUM(m.verify_s)   AS verify_s,
           SUM(m.bench_s)    AS bench_s,
           SUM(m.overhead_s) AS overhead_s
    FROM evaluations e
    JOIN measurements m ON m.id = e.measurement_id
    WHERE e.campaign_id IN scope AND e.cached = 0
    GROUP BY e.campaign_id
),
totals AS (
    SELECT c.id AS campaign_id,
           COALESCE(t.measured, 0)   AS measured,
           COALESCE(t.build_s, 0)    AS build_s,
           COALESCE(t.verify_s, 0)   AS verify_s,
           COALESCE(t.bench_s, 0)    AS bench_s,
           COALESCE(t.overhead_s, 0) AS overhead_s,
           COALESCE(t.build_s + t.verify_s + t.bench_s + t.overhead_s, 0) AS total_s,
           (julianday(c.ended_at) - julianday(c.started_at)) * 86400.0 AS elapsed_s
    FROM campaigns c
    LEFT JOIN phases t ON t.campaign_id = c.id
    WHERE c.id IN scope
)
SELECT campaign_id AS campaign,
       measured,
       build_s, verify_s, bench_s, overhead_s, total_s,
       CASE WHEN total_s > 0 THEN 100.0 * build_s / total_s END    AS build_percent,
       CASE WHEN total_s > 0 THEN 100.0 * verify_s / total_s END   AS verify_percent,
       CASE WHEN total_s > 0 THEN 100.0 * bench_s / total_s END    AS bench_percent,
       CASE WHEN total_s > 0 THEN 100.0 * overhead_s / total_s END AS overhead_percent,
       elapsed_s
FROM totals
ORDER BY campaign_id;
