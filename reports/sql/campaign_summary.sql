-- campaigns: what each campaign tuned and how far it got: plugin build,
-- device (with its roofline peaks), problem, strategy, seed, settings,
-- status, timestamps, its evaluations counted by outcome, and each run of
-- it (invocations) with its budget and limits.
-- Parameters: ?1 a campaign id or NULL; ?2 a plugin name or NULL.
WITH scope AS (
    SELECT c.id
    FROM campaigns c
    JOIN plugins p ON p.id = c.plugin_id
    WHERE (?1 IS NULL OR c.id = ?1) AND (?2 IS NULL OR p.name = ?2)
),
counts AS (
    SELECT e.campaign_id,
           COUNT(*)              AS evaluated,
           SUM(e.cached = 0)     AS measured,
           SUM(e.cached)         AS reused,
           SUM(m.status = 'ok')  AS ok,
           SUM(m.status <> 'ok') AS failed
    FROM evaluations e
    JOIN measurements m ON m.id = e.measurement_id
    WHERE e.campaign_id IN scope
    GROUP BY e.campaign_id
),
-- One line per run, oldest first: "2025-03-01T22:14:05.120Z: --budget 60,
-- 0 → 60 evaluations (budget)".
runs AS (
    SELECT campaign_id, group_concat(line, '; ') AS invocations
    FROM (SELECT i.campaign_id,
                 i.started_at || ': '
                 || CASE WHEN i.budget IS NULL THEN 'no budget' ELSE '--budget ' || i.budget END
                 || CASE WHEN i.time_limit_s IS NULL THEN ''
                         ELSE ', --time-limit ' || i.time_limit_s || ' s' END
                 || CASE WHEN i.target IS NULL THEN '' ELSE ', --target ' || i.target END
                 || ', ' || i.evaluations_before || ' → '
                 || COALESCE(i.evaluations_after, '?') || ' evaluations ('
                 || COALESCE(i.ended, 'did not end') || ')' AS line
          FROM invocations i
          WHERE i.campaign_id IN scope
          ORDER BY i.campaign_id, i.id)
    GROUP BY campaign_id
)
SELECT c.id                         AS campaign,
       p.name                       AS plugin,
       p.version                    AS plugin_version,
       p.source_hash                AS source_hash,
       d.name                       AS device,
       d.platform                   AS platform,
       d.driver_version             AS driver_version,
       pr.text                      AS problem,
       c.strategy                   AS strategy,
       printf('%llu', c.seed)       AS seed,     -- the unsigned 64-bit seed
       c.settings                   AS settings,
       r.invocations                AS invocations,
       c.command                    AS command,
       c.host                       AS host,
       c.replayed                   AS replayed,
       c.status                     AS status,
       c.started_at                 AS started_at,
       c.ended_at                   AS ended_at,
       COALESCE(n.evaluated, 0)     AS evaluated,
       COALESCE(n.measured, 0)      AS measured,
       COALESCE(n.reused, 0)        AS reused,
       COALESCE(n.ok, 0)            AS ok,
       COALESCE(n.failed, 0)        AS failed,
       d.peak_gflops                AS peak_gflops,
       d.peak_gbs                   AS peak_gbs,
       d.is_gpu                     AS is_gpu
FROM campaigns c
JOIN plugins p      ON p.id = c.plugin_id
JOIN devices d      ON d.id = c.device_id
JOIN problems pr    ON pr.id = c.problem_id
LEFT JOIN counts n  ON n.campaign_id = c.id
LEFT JOIN runs r    ON r.campaign_id = c.id
WHERE c.id IN scope
ORDER BY c.id;
