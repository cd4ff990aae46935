-- wisdom: the best configuration (lowest median time, status ok) for every
-- (plugin, device, problem), across plugin builds, drivers and campaigns:
-- what `skytune export --format json|header` writes. problem_values and
-- configuration_values are JSON objects of the parameters (the problem's in
-- the order of its text, the configuration's by name), each value typed as in the config_values view (integer,
-- real, else text). ci_low_ns, ci_high_ns: the median's confidence interval,
-- holding it with probability ci_coverage (NULL: fewer than 2 runs).
-- Parameters: ?1 a campaign id (its plugin) or NULL; ?2 a plugin name or NULL.
WITH plugin_scope AS (
    SELECT p.id
    FROM plugins p
    WHERE (?2 IS NULL OR p.name = ?2)
      AND (?1 IS NULL OR p.name IN (SELECT p2.name FROM campaigns c
                                    JOIN plugins p2 ON p2.id = c.plugin_id WHERE c.id = ?1))
),
ranked AS (
    SELECT m.id, m.problem_id, m.configuration_id,
           ROW_NUMBER() OVER (PARTITION BY p.name, d.name, pr.text
                              ORDER BY m.median_ns, m.id) AS place
    FROM measurements m
    JOIN plugins p   ON p.id = m.plugin_id
    JOIN devices d   ON d.id = m.device_id
    JOIN problems pr ON pr.id = m.problem_id
    WHERE m.plugin_id IN plugin_scope AND m.status = 'ok'
),
best AS (
    SELECT * FROM ranked WHERE place = 1
),
typed AS (
    SELECT problem_id, position AS k, name,
           CASE WHEN value = CAST(CAST(value AS INTEGER) AS TEXT) THEN CAST(value AS INTEGER)
                WHEN value GLOB '*[0-9]*' AND value GLOB '*[.eE]*'
                     AND value = CAST(value AS NUMERIC) THEN CAST(value AS REAL)
                ELSE value
           END AS value
    FROM problem_params
    WHERE problem_id IN (SELECT problem_id FROM best)
    ORDER BY problem_id, k
),
problem_objects AS MATERIALIZED (
    SELECT problem_id, json_group_object(name, value) AS object
    FROM typed
    GROUP BY problem_id
)
SELECT p.name            AS plugin,
       p.version         AS plugin_version,
       d.name            AS device,
       d.platform        AS platform,
       pr.text           AS problem,
       COALESCE(po.object, json_object()) AS problem_values,
       cf.text           AS configuration,
       (SELECT json_group_object(v.name, v.value) FROM config_values v
        WHERE v.configuration_id = cf.id)
                         AS configuration_values,
       m.median_ns       AS median_ns,
       m.ci_low_ns       AS ci_low_ns,
       m.ci_high_ns      AS ci_high_ns,
       m.ci_coverage     AS ci_coverage,
       m.gflops          AS gflops,
       m.gbs             AS gbs
FROM best b
JOIN measurements m    ON m.id = b.id
JOIN plugins p         ON p.id = m.plugin_id
JOIN devices d         ON d.id = m.device_id
JOIN problems pr       ON pr.id = m.problem_id
JOIN configurations cf ON cf.id = m.configuration_id
-- A plugin without problem parameters has one problem, the empty text, which
-- splits into no parameter: it has no row in problem_objects, and its
-- problem_values is the empty object.
LEFT JOIN problem_objects po ON po.problem_id = pr.id
ORDER BY p.name, d.name, pr.text;
