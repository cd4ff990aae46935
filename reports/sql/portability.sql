-- portability: how well one device's best configuration does on another
-- device, for the same plugin and problem. An instance is a plugin (by
-- name: a configuration means the same to every build), a problem (by its
-- text) and a device; its optimum is the fastest configuration that passed
-- in any campaign in scope. For each ordered pair of devices (from, on)
-- with the same plugin and problem, `kept` is the fraction of the `on`
-- device's optimum that the `from` device's optimum keeps there: the `on`
-- device's best time over the time of the `from` device's best
-- configuration on the `on` device (1: it is the optimum there too; 0.5:
-- it takes twice as long). Where the `on` device did not measure that
-- configuration, or it failed there, kept is NULL and `on_status` says
-- which ('not measured', or the status it failed with) -- a campaign that
-- measures it there answers the question.
-- Parameters: ?1 a campaign id or NULL (the instances of that campaign's
-- plugin and problem); ?2 a plugin name or NULL.
WITH scope AS (
    SELECT c.id, p.name AS plugin, pr.text AS problem
    FROM campaigns c
    JOIN plugins p  ON p.id = c.plugin_id
    JOIN problems pr ON pr.id = c.problem_id
    WHERE (?2 IS NULL OR p.name = ?2)
      AND (?1 IS NULL OR (p.name, pr.text) IN (
              SELECT p1.name, pr1.text FROM campaigns c1
              JOIN plugins p1 ON p1.id = c1.plugin_id
              JOIN problems pr1 ON pr1.id = c1.problem_id
              WHERE c1.id = ?1))
),
-- Only problems tuned on two devices or more: the others have nothing to
-- compare, and a database of one device costs nothing here.
shared AS MATERIALIZED (
    SELECT s.plugin, s.problem
    FROM scope s
    JOIN campaigns c ON c.id = s.id
    GROUP BY s.plugin, s.problem
    HAVING COUNT(DISTINCT c.device_id) >= 2
),
-- Every result in scope: an instance's measurements of each configuration
-- (a configuration measured by several builds counts at its fastest).
results AS MATERIALIZED (
    SELECT s.plugin, s.problem, m.device_id, m.configuration_id,
           MIN(CASE WHEN m.status = 'ok' THEN m.median_ns END) AS ok_ns,
           MIN(m.status) AS status
    FROM scope s
    JOIN shared sh      ON sh.plugin = s.plugin AND sh.problem = s.problem
    JOIN evaluations e  ON e.campaign_id = s.id
    JOIN measurements m ON m.id = e.measurement_id
    GROUP BY s.plugin, s.problem, m.device_id, m.configuration_id
),
optima AS MATERIALIZED (
    SELECT plugin, problem, device_id, configuration_id, best_ns
    FROM (SELECT plugin, problem, device_id, configuration_id, ok_ns AS best_ns,
                 row_number() OVER (PARTITION BY plugin, problem, device_id
                                    ORDER BY ok_ns, configuration_id) AS rank
          FROM results WHERE ok_ns IS NOT NULL)
    WHERE rank = 1
)
SELECT a.plugin                                    AS plugin,
       a.problem                                   AS problem,
       da.name                                     AS from_device,
       db.name                                     AS on_device,
       cf.text                                     AS from_best,
       a.best_ns                                   AS from_best_ns,
       b.best_ns                                   AS on_best_ns,
       r.ok_ns                                     AS from_best_on_ns,
       b.best_ns / r.ok_ns                         AS kept,
       CASE WHEN r.configuration_id IS NULL THEN 'not measured'
            WHEN r.ok_ns IS NULL THEN r.status
            ELSE 'ok' END                          AS on_status
FROM optima a
JOIN optima b          ON b.plugin = a.plugin AND b.problem = a.problem
                      AND b.device_id <> a.device_id
JOIN devices da        ON da.id = a.device_id
JOIN devices db        ON db.id = b.device_id
JOIN configurations cf ON cf.id = a.configuration_id
LEFT JOIN results r    ON r.plugin = a.plugin AND r.problem = a.problem
                      AND r.device_id = b.device_id AND r.configuration_id = a.configuration_id
ORDER BY a.plugin, a.problem, da.name, db.name, a.device_id, b.device_id;
