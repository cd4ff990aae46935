-- by-param: which tuning parameters matter, and where failures come from.
-- For each campaign, parameter and value: the configurations evaluated
-- with that value; how many passed and how many failed, by status; the
-- best and the geometric mean of their median times (status ok); and both
-- relative to the campaign's optimum (optimum / value's time, 1 where the
-- value reaches the optimum). A parameter whose values all come close to 1
-- matters little on its own; one whose values spread widely matters. (The
-- geometric mean rather than the median keeps this one sort of the
-- campaign's parameter values: a median needs a second, ordered by time.)
-- Parameters in the order they appear in the configuration text, values in
-- ascending order (numbers before text).
-- Parameters: ?1 a campaign id or NULL; ?2 a plugin name or NULL.
WITH scope AS (
    SELECT c.id
    FROM campaigns c
    JOIN plugins p ON p.id = c.plugin_id
    WHERE (?1 IS NULL OR c.id = ?1) AND (?2 IS NULL OR p.name = ?2)
),
optimum AS MATERIALIZED (
    SELECT e.campaign_id, MIN(m.median_ns) AS best_ns, MIN(m.configuration_id) AS configuration_id
    FROM evaluations e
    JOIN measurements m ON m.id = e.measurement_id
    WHERE e.campaign_id IN scope
    GROUP BY e.campaign_id
),
-- Grouped on the parameters' text; typed (as in config_values) afterwards,
-- on the few groups instead of every row.
counted AS MATERIALIZED (
    SELECT e.campaign_id, v.name, v.value,
           COUNT(*)                         AS evaluated,
           SUM(m.status = 'ok')             AS ok,
           SUM(m.status <> 'ok')            AS failed,
           SUM(m.status = 'compile')        AS compile,
           SUM(m.status = 'launch')         AS launch,
           SUM(m.status = 'wrong_result')   AS wrong_result,
           SUM(m.status = 'timeout')        AS timeout,
           SUM(m.status = 'crash')          AS crash,
           MIN(m.median_ns)                 AS best_ns,
           exp(AVG(ln(m.median_ns)))        AS geomean_ns
    FROM evaluations e
    JOIN measurements m   ON m.id = e.measurement_id
    JOIN config_params v  ON v.configuration_id = m.configuration_id
    WHERE e.campaign_id IN scope
    GROUP BY e.campaign_id, v.name, v.value
),
-- Where each parameter sits in the text of one configuration of the campaign.
param_order AS (
    SELECT o.campaign_id, v.name, instr(',' || cf.text, ',' || v.name || '=') AS position
    FROM optimum o
    JOIN configurations cf ON cf.id = o.configuration_id
    JOIN config_params v   ON v.configuration_id = o.configuration_id
),
typed AS (
    SELECT n.*,
           CASE WHEN n.value = CAST(CAST(n.value AS INTEGER) AS TEXT) THEN CAST(n.value AS INTEGER)
                WHEN n.value GLOB '*[0-9]*' AND n.value GLOB '*[.eE]*'
                     AND n.value = CAST(n.value AS NUMERIC) THEN CAST(n.value AS REAL)
                ELSE n.value
           END AS typed_value
    FROM counted n
)
SELECT n.campaign_id                 AS campaign,
       n.name                        AS parameter,
       n.typed_value                 AS value,
       n.evaluated                   AS evaluated,
       n.ok                          AS ok,
       n.failed                      AS failed,
       100.0 * n.failed / n.evaluated AS failed_percent,
       n.compile                     AS compile,
       n.launch                      AS launch,
       n.wrong_result                AS wrong_result,
       n.timeout                     AS timeout,
       n.crash                       AS crash,
       n.best_ns                     AS best_median_ns,
       n.geomean_ns                  AS geomean_median_ns,
       o.best_ns / n.best_ns         AS best_relative,
       o.best_ns / n.geomean_ns      AS geomean_relative
FROM typed n
LEFT JOIN optimum o      ON o.campaign_id = n.campaign_id
LEFT JOIN param_order po ON po.campaign_id = n.campaign_id AND po.name = n.name
ORDER BY n.campaign_id, COALESCE(po.position, 1e9), n.name, typeof(n.typed_value) = 'text',
         n.typed_value;
