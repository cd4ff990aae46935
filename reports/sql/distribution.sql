-- distribution: a histogram of each campaign's performance over its
-- configurations with status ok, in 40 equal bins from the lowest to the
-- highest value (Sclocco et al., fig. 10). Performance is GFLOP/s when the
-- plugin counts FLOPs for every one of them, otherwise runs per second
-- (1e9 / median_ns); metric says which. A campaign whose configurations all
-- perform alike has one bin. Parameters: ?1 a campaign id or NULL; ?2 a
-- plugin name or NULL. snr.sql summarises the same values.
WITH scope AS (
    SELECT c.id
    FROM campaigns c
    JOIN plugins p ON p.id = c.plugin_id
    WHERE (?1 IS NULL OR c.id = ?1) AND (?2 IS NULL OR p.name = ?2)
),
-- The first pass finds the range of both metrics, since which one applies
-- is only known at its end; reading evaluations in key order, grouping by
-- campaign needs no sort.
first_pass AS MATERIALIZED (
    SELECT e.campaign_id,
           COUNT(*) = COUNT(m.gflops) AS by_gflops,
           MIN(m.gflops)              AS min_gflops,
           MAX(m.gflops)              AS max_gflops,
           MIN(1e9 / m.median_ns)     AS min_rate,
           MAX(1e9 / m.median_ns)     AS max_rate
    FROM evaluations e
    JOIN measurements m ON m.id = e.measurement_id
    WHERE e.campaign_id IN scope AND m.status = 'ok' AND m.median_ns > 0
    GROUP BY e.campaign_id
),
span AS MATERIALIZED (
    SELECT campaign_id, by_gflops,
           CASE WHEN by_gflops THEN min_gflops ELSE min_rate END AS lo,
           CASE WHEN by_gflops THEN max_gflops ELSE max_rate END AS hi
    FROM first_pass
),
bins(bin) AS (
    SELECT 0 UNION ALL SELECT bin + 1 FROM bins WHERE bin < 39
),
counted AS MATERIALIZED (
    SELECT s.campaign_id,
           CASE WHEN s.hi > s.lo
                THEN MIN(CAST(((CASE WHEN s.by_gflops THEN m.gflops ELSE 1e9 / m.median_ns END)
                               - s.lo) / (s.hi - s.lo) * 40 AS INTEGER), 39)
                ELSE 0 END AS bin,
           COUNT(*) AS n
    FROM span s
    JOIN evaluations e  ON e.campaign_id = s.campaign_id
    JOIN measurements m ON m.id = e.measurement_id
    WHERE m.status = 'ok' AND m.median_ns > 0
    GROUP BY 1, 2
)
SELECT s.campaign_id                                     AS campaign,
       CASE WHEN s.by_gflops THEN 'GFLOP/s' ELSE 'runs/s' END AS metric,
       b.bin                                             AS bin,
       s.lo + b.bin * (s.hi - s.lo) / 40.0               AS bin_low,
       CASE WHEN s.hi > s.lo THEN s.lo + (b.bin + 1) * (s.hi - s.lo) / 40.0 ELSE s.hi END AS bin_high,
       COALESCE(c.n, 0)                                  AS configurations
FROM span s
JOIN bins b        ON s.hi > s.lo OR b.bin = 0
LEFT JOIN counted c ON c.campaign_id = s.campaign_id AND c.bin = b.bin
ORDER BY s.campaign_id, b.bin;
