-- independence: does the order of one tuning parameter's values stay the
-- same whatever the value of another? (Kis 2013, section 7.5: the beam
-- former's read layouts rank the same for every write layout, its
-- "read-write independence", which let the thesis tune the two halves of a
-- pipeline apart.) For each campaign and each ordered pair of parameters
-- (`ranked`, `across`), the configurations that passed are grouped by the
-- values of all their other parameters (a context). In each context, the
-- value of `across` of the fastest configuration is the reference, and
-- every other value of `across` is compared with it (a ranking that is the
-- reference's under each value is the same under all of them): two values
-- r1, r2 of `ranked`, measured under the reference and under the other
-- value, make one comparison -- is r1 faster than r2 under both, or slower
-- under both? agreement is the share of comparisons whose order holds.
-- Orders decided by a few percent flip with run-to-run noise, so decisive
-- comparisons are those whose two time ratios both exceed 1.05;
-- decisive_agreement is the share of those that hold, and `independent` is
-- 1 when none flips, 0 when one does, NULL when none is decisive. A pair
-- whose parameters never vary together in a context gives no row.
-- Campaigns with more than 10,000 passed configurations are left out: their
-- comparisons would take minutes, and a campaign over the parameters in
-- question (the others fixed) answers this question better anyway.
-- Parameters: ?1 a campaign id or NULL; ?2 a plugin name or NULL.
WITH scope AS (
    SELECT c.id
    FROM campaigns c
    JOIN plugins p ON p.id = c.plugin_id
    WHERE (?1 IS NULL OR c.id = ?1) AND (?2 IS NULL OR p.name = ?2)
      AND (SELECT COUNT(*) FROM evaluations e JOIN measurements m ON m.id = e.measurement_id
           WHERE e.campaign_id = c.id AND m.status = 'ok') <= 10000
),
passed AS MATERIALIZED (
    SELECT e.campaign_id, m.configuration_id, m.median_ns
    FROM evaluations e
    JOIN measurements m ON m.id = e.measurement_id
    WHERE e.campaign_id IN scope AND m.status = 'ok'
),
-- Each passed configuration once per ordered pair of its parameters, with
-- the two values and the text of the others (config_params holds a
-- configuration's parameters in name order, so equal contexts are equal
-- texts).
cells AS MATERIALIZED (
    SELECT o.campaign_id, r.name AS ranked, a.name AS across, r.value AS r, a.value AS a,
           (SELECT group_concat(x.name || '=' || x.value, ',')
            FROM config_params x
            WHERE x.configuration_id = o.configuration_id AND x.name NOT IN (r.name, a.name))
               AS context,
           o.median_ns AS t
    FROM passed o
    JOIN config_params r ON r.configuration_id = o.configuration_id
    JOIN config_params a ON a.configuration_id = o.configuration_id AND a.name <> r.name
),
-- Within each context, the value of `across` of the fastest configuration:
-- the reference the other values' rankings are compared with.
referenced AS MATERIALIZED (
    SELECT *, first_value(a) OVER (PARTITION BY campaign_id, ranked, across, context
                                   ORDER BY t, a) AS reference
    FROM cells
),
comparisons AS (
    SELECT x1.campaign_id, x1.ranked, x1.across,
           (x1.t < x2.t) = (y1.t < y2.t) AS holds,
           max(x1.t, x2.t) > 1.05 * min(x1.t, x2.t)
               AND max(y1.t, y2.t) > 1.05 * min(y1.t, y2.t) AS decisive
    FROM referenced x1
    JOIN referenced x2 ON x2.campaign_id = x1.campaign_id AND x2.ranked = x1.ranked
                      AND x2.across = x1.across AND x2.context IS x1.context
                      AND x2.a = x1.a AND x2.r > x1.r
    JOIN referenced y1 ON y1.campaign_id = x1.campaign_id AND y1.ranked = x1.ranked
                      AND y1.across = x1.across AND y1.context IS x1.context
                      AND y1.r = x1.r AND y1.a <> x1.a
    JOIN referenced y2 ON y2.campaign_id = x1.campaign_id AND y2.ranked = x1.ranked
                      AND y2.across = x1.across AND y2.context IS x1.context
                      AND y2.r = x2.r AND y2.a = y1.a
    WHERE x1.a = x1.reference
)
SELECT campaign_id                                   AS campaign,
       ranked,
       across,
       COUNT(*)                                      AS comparisons,
       AVG(holds)                                    AS agreement,
       SUM(decisive)                                 AS decisive,
       SUM(decisive AND NOT holds)                   AS decisive_flips,
       1.0 * SUM(decisive AND holds) / NULLIF(SUM(decisive), 0) AS decisive_agreement,
       CASE WHEN SUM(decisive) = 0 THEN NULL
            ELSE SUM(decisive AND NOT holds) = 0 END AS independent
FROM comparisons
GROUP BY campaign_id, ranked, across
ORDER BY campaign_id, ranked, across;
