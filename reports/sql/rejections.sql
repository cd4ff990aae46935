-- rejections: how much of the Cartesian product of a campaign's parameter
-- values each constraint removed, as the run that last opened the campaign
-- built its space (tables campaign_spaces and space_rejections). Every
-- ruled-out combination is counted once, under the constraint that
-- rejected it first in the order the space checks them, so the counts add
-- up to cartesian - valid. kind: 'constraint' (the plugin's), 'device_limit'
-- (a constraint on device.*), 'restriction' (--restrict) or 'callback' (the
-- plugin's C constraint, rule its reason). A campaign whose constraints
-- removed nothing gives one row with NULL kind; a campaign recorded before
-- skytune kept spaces (schema version 8) gives none.
-- Parameters: ?1 a campaign id or NULL; ?2 a plugin name or NULL.
WITH scope AS (
    SELECT c.id
    FROM campaigns c
    JOIN plugins p ON p.id = c.plugin_id
    WHERE (?1 IS NULL OR c.id = ?1) AND (?2 IS NULL OR p.name = ?2)
)
SELECT s.campaign_id                   AS campaign,
       s.cartesian                     AS cartesian,
       s.valid                         AS valid,
       s.valid / s.cartesian           AS valid_share,
       r.kind                          AS kind,
       r.rule                          AS rule,
       r.ruled_out                     AS ruled_out,
       r.ruled_out / s.cartesian       AS share
FROM campaign_spaces s
LEFT JOIN space_rejections r ON r.campaign_id = s.campaign_id
WHERE s.campaign_id IN scope
ORDER BY s.campaign_id, r.position;
