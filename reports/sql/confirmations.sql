-- confirmations: every confirmation of a campaign's winner, one row per
-- confirmed configuration: its place in the campaign (by the campaign's
-- median) and on confirmation (by the median of its visits' medians, NULL
-- when a visit failed), both medians, the confirmed median's interval, and
-- whether the winner changed; gain is the campaign best's confirmed median
-- over the winner's (1 when it stands). docs/reports.md, "Confirmation".
-- Parameters: ?1 a campaign id or NULL; ?2 a plugin name or NULL.
SELECT cn.campaign_id            AS campaign,
       cn.id                     AS confirmation,
       cn.ended_at               AS confirmed_at,
       cn.top                    AS top,
       cn.rounds                 AS rounds,
       cn.runs                   AS runs,
       cn.changed                AS changed,
       ce.campaign_place         AS campaign_place,
       ce.confirmed_place        AS confirmed_place,
       cf.text                   AS configuration,
       ce.campaign_median_ns     AS campaign_median_ns,
       ce.confirmed_median_ns    AS confirmed_median_ns,
       ce.ci_low_ns              AS ci_low_ns,
       ce.ci_high_ns             AS ci_high_ns,
       ce.ci_coverage            AS ci_coverage,
       ce.ok_visits              AS ok_visits,
       cb.confirmed_median_ns / w.confirmed_median_ns AS gain
FROM confirmations cn
JOIN campaigns c ON c.id = cn.campaign_id
JOIN plugins p   ON p.id = c.plugin_id
JOIN confirmation_entries ce ON ce.confirmation_id = cn.id
JOIN configurations cf       ON cf.id = ce.configuration_id
LEFT JOIN confirmation_entries cb ON cb.confirmation_id = cn.id
                                 AND cb.configuration_id = cn.campaign_best_id
LEFT JOIN confirmation_entries w  ON w.confirmation_id = cn.id
                                 AND w.configuration_id = cn.winner_id
WHERE (?1 IS NULL OR c.id = ?1) AND (?2 IS NULL OR p.name = ?2)
ORDER BY cn.campaign_id, cn.id, ce.campaign_place;
