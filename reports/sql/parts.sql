-- parts: where the time of each campaign's best configuration goes, for
-- plugins that enqueue several kernels in one run (a pipeline's stages and
-- transpositions, gridding's kernels, FFT passes). One row per labelled part
-- of the best configuration that passed (lowest median, as in `best`): its
-- median over the timed runs and its share of the sum of the parts' medians.
-- The parts' medians are taken apart, so their sum is close to, but not the
-- same as, the median of the whole run (total_ns). Campaigns whose plugin
-- labels no parts give no row.
-- Parameters: ?1 a campaign id or NULL; ?2 a plugin name or NULL.
WITH scope AS (
    SELECT c.id
    FROM campaigns c
    JOIN plugins p ON p.id = c.plugin_id
    WHERE (?1 IS NULL OR c.id = ?1) AND (?2 IS NULL OR p.name = ?2)
),
ranked AS (
    SELECT e.campaign_id,
           m.id AS measurement_id,
           ROW_NUMBER() OVER (PARTITION BY e.campaign_id ORDER BY m.median_ns, m.id) AS place
    FROM evaluations e
    JOIN measurements m ON m.id = e.measurement_id
    WHERE e.campaign_id IN scope AND m.status = 'ok'
),
best AS (
    SELECT campaign_id, measurement_id FROM ranked WHERE place = 1
),
sums AS (
    SELECT b.campaign_id, SUM(mp.median_ns) AS parts_ns
    FROM best b
    JOIN measurement_parts mp ON mp.measurement_id = b.measurement_id
    GROUP BY b.campaign_id
)
SELECT b.campaign_id   AS campaign,
       b.measurement_id AS measurement,
       cf.text         AS configuration,
       mp.part         AS part,
       mp.label        AS label,
       mp.median_ns    AS median_ns,
       CASE WHEN s.parts_ns > 0 THEN 100.0 * mp.median_ns / s.parts_ns END AS percent,
       m.median_ns     AS total_ns
FROM best b
JOIN measurement_parts mp   ON mp.measurement_id = b.measurement_id
JOIN sums s                 ON s.campaign_id = b.campaign_id
JOIN measurements m         ON m.id = b.measurement_id
JOIN configurations cf      ON cf.id = m.configuration_id
ORDER BY b.campaign_id, mp.part;
