-- interactions: the pairs of tuning parameters whose effect on a campaign's
-- times is more than the sum of their effects alone. Over the
-- configurations that passed, y is the log of the median time (as in
-- importance.sql). For parameters a and b, the sum of squares between the
-- groups of equal (a, b) values, less what a and b explain alone (their
-- between-groups sums), is the part of the total that only the two
-- together explain: `share` is that part of the total sum of squares (a
-- two-way interaction share), `joint_share` what the pair explains
-- together. Where constraints make a and b vary together the parts are not
-- independent, and a share below 0 reads as none (it is shown as 0). A
-- pair whose cells hold one configuration each explains every such
-- configuration exactly, so `cells` and `configurations` are shown to
-- judge it by. Rows by campaign, strongest pair first. Campaigns with more
-- than 20,000 passed configurations are left out: each configuration is
-- taken once per pair of its parameters, which would take minutes there.
-- Parameters: ?1 a campaign id or NULL; ?2 a plugin name or NULL;
-- ?3 how many pairs per campaign (default 20).
WITH scope AS (
    SELECT c.id
    FROM campaigns c
    JOIN plugins p ON p.id = c.plugin_id
    WHERE (?1 IS NULL OR c.id = ?1) AND (?2 IS NULL OR p.name = ?2)
      AND (SELECT COUNT(*) FROM evaluations e JOIN measurements m ON m.id = e.measurement_id
           WHERE e.campaign_id = c.id AND m.status = 'ok') <= 20000
),
passed AS MATERIALIZED (
    SELECT e.campaign_id, m.configuration_id, ln(m.median_ns) AS y
    FROM evaluations e
    JOIN measurements m ON m.id = e.measurement_id
    WHERE e.campaign_id IN scope AND m.status = 'ok' AND m.median_ns > 0
),
spread AS MATERIALIZED (
    SELECT p.campaign_id, t.n, t.mean, SUM((p.y - t.mean) * (p.y - t.mean)) AS ss_total
    FROM passed p
    JOIN (SELECT campaign_id, COUNT(*) AS n, AVG(y) AS mean FROM passed GROUP BY campaign_id) t
      ON t.campaign_id = p.campaign_id
    GROUP BY p.campaign_id
),
values_of AS MATERIALIZED (
    SELECT p.campaign_id, p.configuration_id, p.y, v.name, v.value
    FROM passed p
    JOIN config_params v ON v.configuration_id = p.configuration_id
),
main AS MATERIALIZED (
    SELECT campaign_id, name, SUM(n * (mean - grand) * (mean - grand)) AS ss
    FROM (SELECT x.campaign_id, x.name, COUNT(*) AS n, AVG(x.y) AS mean, s.mean AS grand
          FROM values_of x
          JOIN spread s ON s.campaign_id = x.campaign_id
          GROUP BY x.campaign_id, x.name, x.value)
    GROUP BY campaign_id, name
),
cells AS (
    SELECT a.campaign_id, a.name AS a, b.name AS b, COUNT(*) AS n, AVG(a.y) AS mean
    FROM values_of a
    JOIN values_of b ON b.campaign_id = a.campaign_id
                    AND b.configuration_id = a.configuration_id AND b.name > a.name
    GROUP BY a.campaign_id, a.name, b.name, a.value, b.value
),
joint AS (
    SELECT c.campaign_id, c.a, c.b, COUNT(*) AS cells,
           SUM(c.n * (c.mean - s.mean) * (c.mean - s.mean)) AS ss
    FROM cells c
    JOIN spread s ON s.campaign_id = c.campaign_id
    GROUP BY c.campaign_id, c.a, c.b
),
ranked AS (
    SELECT j.campaign_id, j.a, j.b, j.cells, s.n,
           j.ss / s.ss_total AS joint_share,
           max(0.0, (j.ss - ma.ss - mb.ss) / s.ss_total) AS share,
           row_number() OVER (PARTITION BY j.campaign_id
                              ORDER BY (j.ss - ma.ss - mb.ss) DESC, j.a, j.b) AS rank
    FROM joint j
    JOIN spread s ON s.campaign_id = j.campaign_id
    JOIN main ma ON ma.campaign_id = j.campaign_id AND ma.name = j.a
    JOIN main mb ON mb.campaign_id = j.campaign_id AND mb.name = j.b
    WHERE s.n >= 3 AND s.ss_total > 0
)
SELECT campaign_id   AS campaign,
       a             AS parameter,
       b             AS "with",
       cells,
       n             AS configurations,
       share,
       joint_share
FROM ranked
WHERE rank <= COALESCE(CAST(?3 AS INTEGER), 20)
ORDER BY campaign_id, rank;
