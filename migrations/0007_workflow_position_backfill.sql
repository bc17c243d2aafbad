-- Custom SQL migration file, put your code below! --
-- Workflows stored before `position` existed get the order they were read in until now (created_at,
-- then id), except that a project imported from a bmad.json puts the workflows its manifest lists
-- first, in the manifest's order: a one-batch import often gave them all the same created_at, and
-- then their order had fallen back to the ids' alphabetical order. A manifest that is missing, is
-- not JSON or has no workflows[] array leaves the created_at order.
WITH `listed` AS (
  SELECT `p`.`id` AS `project_id`, json_extract(`e`.`value`, '$.id') AS `workflow_id`, MIN(`e`.`key`) AS `at`
  FROM `projects` `p`,
    json_each(
      COALESCE(CASE WHEN json_valid(`p`.`manifest_json`) THEN CASE WHEN json_type(`p`.`manifest_json`, '$.workflows') = 'array' THEN `p`.`manifest_json` END END, '{}'),
      '$.workflows'
    ) `e`
  WHERE `e`.`type` = 'object'
  GROUP BY `p`.`id`, json_extract(`e`.`value`, '$.id')
),
`ranked` AS (
  SELECT `w`.`project_id`, `w`.`id`,
    ROW_NUMBER() OVER (PARTITION BY `w`.`project_id` ORDER BY `l`.`at` IS NULL, `l`.`at`, `w`.`created_at`, `w`.`id`) - 1 AS `at`
  FROM `workflows` `w`
  LEFT JOIN `listed` `l` ON `l`.`project_id` = `w`.`project_id` AND `l`.`workflow_id` = `w`.`id`
)
UPDATE `workflows` SET `position` = `ranked`.`at`
FROM `ranked`
WHERE `ranked`.`project_id` = `workflows`.`project_id` AND `ranked`.`id` = `workflows`.`id`;
