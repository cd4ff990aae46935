-- roofline: achieved GFLOP/s against arithmetic intensity (FLOP per byte,
-- gflops / gbs) for each campaign's configurations with status ok whose
-- plugin counts both FLOPs and bytes, with the device's peaks (NULL until
-- measured with `skytune devices --probe` or set by hand). So that a
-- campaign of 10^5 configurations stays a readable chart, configurations
-- are merged into cells 1/16 of a factor e wide on both logarithmic axes:
-- one row per occupied cell, at the geometric mean of its points, with how
-- many configurations it holds and its best GFLOP/s and GB/s (the largest
-- over a campaign's cells are its best measured, which the report draws as
-- ceilings when the device's peaks are unknown).
-- Parameters: ?1 a campaign id or NULL; ?2 a plugin name or NULL.
WITH scope AS (
    SELECT c.id
    FROM campaigns c
    JOIN plugins p ON p.id = c.plugin_id
    WHERE (?1 IS NULL OR c.id = ?1) AND (?2 IS NULL OR p.name = ?2)
),
points AS (
    SELECT e.campaign_id, ln(m.gflops / m.gbs) AS log_intensity, ln(m.gflops) AS log_gflops,
           m.gflops, m.gbs
    FROM evaluations e
    JOIN measurements m ON m.id = e.measurement_id
    WHERE e.campaign_id IN scope AND m.status = 'ok' AND m.gflops > 0 AND m.gbs > 0
),
cells AS (
    SELECT campaign_id,
           exp(AVG(log_intensity)) AS intensity,
           exp(AVG(log_gflops))    AS gflops,
           MAX(gflops)             AS best_gflops,
           MAX(gbs)                AS best_gbs,
           COUNT(*)                AS configurations
    FROM points
    GROUP BY campaign_id, CAST(round(log_intensity * 16) AS INTEGER),
             CAST(round(log_gflops * 16) AS INTEGER)
)
SELECT s.campaign_id     AS campaign,
       s.intensity       AS intensity,
       s.gflops          AS gflops,
       s.best_gflops     AS best_gflops,
       s.best_gbs        AS best_gbs,
       s.configurations  AS configurations,
       d.peak_gflops     AS peak_gflops,
       d.peak_gbs        AS peak_gbs
FROM cells s
JOIN campaigns c ON c.id = s.campaign_id
JOIN devices d   ON d.id = c.device_id
ORDER BY s.campaign_id, s.intensity, s.gflops;
