/**
 * Who may see a status by its visibility, as SQL over `statuses s` (Mastodon's StatusPolicy#show?):
 * its author always; public and unlisted statuses anyone; private ones followers of the author
 * and the accounts it mentions; direct ones only the accounts it mentions. Blocks and mutes are
 * the callers' own business.
 */
export function visibleBy(viewer: string): string {
  return `(s.account_id IS ${viewer} OR s.visibility IN ('public', 'unlisted')
    OR (s.visibility = 'private' AND EXISTS (SELECT 1 FROM follows vf WHERE vf.account_id = ${viewer} AND vf.target_account_id = s.account_id))
    OR EXISTS (SELECT 1 FROM mentions vm WHERE vm.status_id = s.id AND vm.account_id = ${viewer}))`;
}
