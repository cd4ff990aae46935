-- importance: how much of the spread of a campaign's times each tuning
-- parameter explains on its own. Over the configurations that passed, y is
-- the log of the median time (a parameter that makes a kernel twice as slow
-- does so at any speed: effects on time multiply, on log-time they add).
-- A one-way analysis of variance per parameter: `share` is the part of the
-- total sum of squares of y around its mean that lies between the
-- parameter's value groups (eta squared): 1 when the parameter's value
-- alone fixes the time, near 0 when it does not matter. With few
-- configurations a parameter of no effect still gets a share of about
-- (values - 1) / (configurations - 1) by chance, so `adjusted_share`
-- subtracts what chance gives (epsilon squared: the between-groups sum less
-- (values - 1) times the within-groups mean square, over the total), and is
-- near 0 for a parameter of no effect whatever the campaign's size.
-- Constraints make parameters vary together, so shares may sum to more
-- than 1: each is what that parameter explains alone. A campaign with fewer
-- than 3 passed configurations, or whose times are all equal, gives no row.
-- Rows by campaign, largest share first.
-- Parameters: ?1 a campaign id or NULL; ?2 a plugin name or NULL.
WITH scope AS (
    SELECT c.id
    FROM campaigns c
    JOIN plugins p ON p.id = c.plugin_id
    WHERE (?1 IS NULL OR c.id = ?1) AND (?2 IS NULL OR p.name = ?2)
),
passed AS MATERIALIZED (
    SELECT e.campaign_id, m.configuration_id, ln(m.median_ns) AS y
    FROM evaluations e
    JOIN measurements m ON m.id = e.measurement_id
    WHERE e.campaign_id IN scope AND m.status = 'ok' AND m.median_ns > 0
),
totals AS MATERIALIZED (
    SELECT campaign_id, COUNT(*) AS n, AVG(y) AS mean
    FROM passed
    GROUP BY campaign_id
),
spread AS MATERIALIZED (
    SELECT p.campaign_id, t.n, t.mean, SUM((p.y - t.mean) * (p.y - t.mean)) AS ss_total
    FROM passed p
    JOIN totals t ON t.campaign_id = p.campaign_id
    GROUP BY p.campaign_id
),
groups AS (
    SELECT p.campaign_id, v.name, v.value, COUNT(*) AS n, AVG(p.y) AS mean
    FROM passed p
    JOIN config_params v ON v.configuration_id = p.configuration_id
    GROUP BY p.campaign_id, v.name, v.value
),
between_groups AS (
    SELECT g.campaign_id, g.name, COUNT(*) AS n_values,
           SUM(g.n * (g.mean - s.mean) * (g.mean - s.mean)) AS ss_between
    FROM groups g
    JOIN spread s ON s.campaign_id = g.campaign_id
    GROUP BY g.campaign_id, g.name
)
SELECT b.campaign_id                                  AS campaign,
       b.name                                         AS parameter,
       b.n_values                                     AS "values",
       s.n                                            AS configurations,
       b.ss_between / s.ss_total                      AS share,
       CASE WHEN s.n > b.n_values
            THEN max(0.0, (b.ss_between - (b.n_values - 1) * (s.ss_total - b.ss_between)
                                          / (s.n - b.n_values)) / s.ss_total)
       END                                            AS adjusted_share
FROM between_groups b
JOIN spread s ON s.campaign_id = b.campaign_id
WHERE s.n >= 3 AND s.ss_total > 0
ORDER BY b.campaign_id, share DESC, b.name;
