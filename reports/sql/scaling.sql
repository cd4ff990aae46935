-- scaling: performance against problem size. The parameters of each
-- plugin's instances (problem_params) are compared; a parameter whose
-- value differs between instances is what varies, and for each such
-- parameter every instance's best configuration is a point: x the
-- parameter's value (x is NULL where the value is not a number), y its
-- GFLOP/s (and its median time, for plugins that do not count FLOPs). One
-- series per device. When several parameters vary, each gets its own
-- series, and the others vary along it.
-- Parameters: ?1 a campaign id (its plugin) or NULL; ?2 a plugin name or NULL.
WITH plugin_scope AS (
    SELECT p.id
    FROM plugins p
    WHERE (?2 IS NULL OR p.name = ?2)
      AND (?1 IS NULL OR p.name IN (SELECT p2.name FROM campaigns c
                                    JOIN plugins p2 ON p2.id = c.plugin_id WHERE c.id = ?1))
),
-- Each instance's optimum in one pass in the order of the measurements'
-- unique index, so grouping needs no sort (SQLite takes the bare columns
-- from the row that gave MIN).
best AS MATERIALIZED (
    SELECT m.plugin_id, m.device_id, m.problem_id, m.configuration_id, MIN(m.median_ns) AS median_ns,
           m.gflops
    FROM measurements m
    WHERE m.plugin_id IN plugin_scope AND m.status = 'ok'
    GROUP BY m.plugin_id, m.device_id, m.problem_id
),
pairs AS (
    SELECT pp.problem_id, p.name AS plugin, pp.name, pp.value
    FROM problem_params pp
    JOIN problems pr ON pr.id = pp.problem_id
    JOIN plugins p   ON p.id = pr.plugin_id
    WHERE pp.problem_id IN (SELECT problem_id FROM best)
),
varying AS (
    SELECT plugin, name
    FROM pairs
    GROUP BY plugin, name
    HAVING COUNT(DISTINCT value) > 1
)
SELECT v.plugin                AS plugin,
       v.name                  AS parameter,
       d.name                  AS device,
       pa.value                AS value,
       CASE WHEN pa.value = CAST(CAST(pa.value AS INTEGER) AS TEXT) THEN CAST(pa.value AS INTEGER)
            WHEN pa.value GLOB '*[0-9]*' AND pa.value = CAST(pa.value AS NUMERIC)
                 THEN CAST(pa.value AS REAL)
       END                     AS x,
       pr.text                 AS problem,
       b.gflops                AS gflops,
       b.median_ns             AS median_ns,
       cf.text                 AS configuration
FROM varying v
JOIN pairs pa          ON pa.plugin = v.plugin AND pa.name = v.name
JOIN best b            ON b.problem_id = pa.problem_id
JOIN devices d         ON d.id = b.device_id
JOIN problems pr       ON pr.id = b.problem_id
JOIN configurations cf ON cf.id = b.configuration_id
ORDER BY v.plugin, v.name, d.name, x, pa.value, pr.text;
