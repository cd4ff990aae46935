-- failures: each campaign's evaluations counted by status (ok included, so
-- the counts add up to the evaluations), with the share of the campaign and
-- the message of the status's first evaluation that has one (the build log
-- of a compile failure, the OpenCL error of a launch failure), cut to 300
-- characters. Statuses that did not occur are left out.
-- Parameters: ?1 a campaign id or NULL; ?2 a plugin name or NULL.
WITH scope AS (
    SELECT c.id
    FROM campaigns c
    JOIN plugins p ON p.id = c.plugin_id
    WHERE (?1 IS NULL OR c.id = ?1) AND (?2 IS NULL OR p.name = ?2)
),
statuses(status, position) AS (
    VALUES ('ok', 0), ('compile', 1), ('launch', 2), ('wrong_result', 3), ('timeout', 4),
           ('crash', 5)
),
-- One pass per campaign in key order (no sort): every status's count and
-- its first evaluation with a message.
counted AS MATERIALIZED (
    SELECT e.campaign_id,
           COUNT(*) AS evaluations,
           SUM(m.status = 'ok') AS n_ok,
           SUM(m.status = 'compile') AS n_compile,
           SUM(m.status = 'launch') AS n_launch,
           SUM(m.status = 'wrong_result') AS n_wrong_result,
           SUM(m.status = 'timeout') AS n_timeout,
           SUM(m.status = 'crash') AS n_crash,
           MIN(CASE WHEN m.status = 'ok' AND m.message IS NOT NULL THEN e.seq END) AS seq_ok,
           MIN(CASE WHEN m.status = 'compile' AND m.message IS NOT NULL THEN e.seq END) AS seq_compile,
           MIN(CASE WHEN m.status = 'launch' AND m.message IS NOT NULL THEN e.seq END) AS seq_launch,
           MIN(CASE WHEN m.status = 'wrong_result' AND m.message IS NOT NULL THEN e.seq END)
               AS seq_wrong_result,
           MIN(CASE WHEN m.status = 'timeout' AND m.message IS NOT NULL THEN e.seq END) AS seq_timeout,
           MIN(CASE WHEN m.status = 'crash' AND m.message IS NOT NULL THEN e.seq END) AS seq_crash
    FROM evaluations e
    JOIN measurements m ON m.id = e.measurement_id
    WHERE e.campaign_id IN scope
    GROUP BY e.campaign_id
),
rows AS (
    SELECT c.campaign_id, s.status, s.position, c.evaluations AS campaign_evaluations,
           CASE s.status WHEN 'ok' THEN c.n_ok WHEN 'compile' THEN c.n_compile
                         WHEN 'launch' THEN c.n_launch WHEN 'wrong_result' THEN c.n_wrong_result
                         WHEN 'timeout' THEN c.n_timeout ELSE c.n_crash END AS evaluations,
           CASE s.status WHEN 'ok' THEN c.seq_ok WHEN 'compile' THEN c.seq_compile
                         WHEN 'launch' THEN c.seq_launch WHEN 'wrong_result' THEN c.seq_wrong_result
                         WHEN 'timeout' THEN c.seq_timeout ELSE c.seq_crash END AS first_seq
    FROM counted c
    CROSS JOIN statuses s
)
SELECT r.campaign_id                                     AS campaign,
       r.status                                          AS status,
       r.evaluations                                     AS evaluations,
       100.0 * r.evaluations / r.campaign_evaluations    AS percent,
       substr(m.message, 1, 300)                         AS first_message
FROM rows r
LEFT JOIN evaluations e  ON e.campaign_id = r.campaign_id AND e.seq = r.first_seq
LEFT JOIN measurements m ON m.id = e.measurement_id
WHERE r.evaluations > 0
ORDER BY r.campaign_id, r.position;
