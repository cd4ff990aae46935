-- top-samples: the timed runs of each campaign's fastest configurations
-- (place as in top.sql, 1 being the best; ?3 of them, NULL: 6), one row per
-- run: what `skytune best` and the report test the runner-ups against the best with
-- (docs/reports.md, "Indistinguishable configurations").
-- Parameters: ?1 a campaign id or NULL; ?2 a plugin name or NULL;
-- ?3 how many per campaign (NULL: 6).
WITH ranked AS (
    SELECT e.campaign_id,
           m.id AS measurement_id,
           ROW_NUMBER() OVER (PARTITION BY e.campaign_id ORDER BY m.median_ns, m.id) AS place
    FROM evaluations e
    JOIN measurements m ON m.id = e.measurement_id
    JOIN campaigns c    ON c.id = e.campaign_id
    JOIN plugins p      ON p.id = c.plugin_id
    WHERE m.status = 'ok' AND (?1 IS NULL OR c.id = ?1) AND (?2 IS NULL OR p.name = ?2)
)
SELECT r.campaign_id    AS campaign,
       r.place          AS place,
       cf.text          AS configuration,
       m.median_ns      AS median_ns,
       s.run            AS run,
       s.time_ns        AS time_ns
FROM ranked r
JOIN measurements m    ON m.id = r.measurement_id
JOIN configurations cf ON cf.id = m.configuration_id
JOIN samples s         ON s.measurement_id = r.measurement_id
WHERE r.place <= COALESCE(CAST(?3 AS INTEGER), 6)
ORDER BY r.campaign_id, r.place, s.run;
