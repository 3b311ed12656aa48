/**
 * Whether a CI run that is not a pull request's (a push, a schedule, `workflow_run`, `issue_comment`,
 * `repository_dispatch`, `workflow_dispatch`, a GitLab pipeline) is gated: decided from what is
 * checked out, never from the ref the run names alone. Those events carry the default branch's ref
 * while a workflow may check out a pull request's head (`actions/checkout` with `ref: <head sha>`):
 * HEAD is then the pull request's commit. Pure: the git facts are read in `src/fs/git.ts`.
 */

/**
 * What git says of HEAD and the default branch in a clone.
 * - `ref`: the fully qualified remote-tracking branch, `refs/remotes/origin/<default>`;
 * - `tip`: its commit, undefined when the clone does not have it;
 * - `head`: HEAD's commit, undefined when there is none;
 * - `headOnDefault`: HEAD is `tip` or an ancestor of it (`git merge-base --is-ancestor HEAD <tip>`);
 * - `mergeBase`: the merge-base of HEAD and `tip`, undefined when there is none in this clone.
 */
export interface DefaultBranchFacts {
  ref: string;
  tip: string | undefined;
  head: string | undefined;
  headOnDefault: boolean;
  mergeBase: string | undefined;
}

/**
 * The gate of a run:
 * - `ungated`: HEAD is the default branch's tip or an ancestor of it (reviewed code);
 * - `gated`: any other HEAD, gated by `rev`, the merge-base of HEAD and the default branch;
 * - `unreadable`: the default branch is not in the clone, or shares no history with HEAD here
 *   (`why`, for a message): nothing may be sent.
 */
export type DefaultBranchGate =
  | { kind: 'ungated' }
  | { kind: 'gated'; rev: string }
  | { kind: 'unreadable'; why: string };

/**
 * Decide the gate of a run from the facts of its clone ({@link DefaultBranchFacts}): ungated only
 * when HEAD is on the default branch (its tip or an ancestor of `refs/remotes/origin/<default>`),
 * whatever ref or event the run names; otherwise gated by the merge-base; unreadable when the
 * default branch is not in the clone or has no common ancestor with HEAD.
 */
export function defaultBranchGate(facts: DefaultBranchFacts): DefaultBranchGate {
  if (facts.tip === undefined) return { kind: 'unreadable', why: 'is not in this clone' };
  if (facts.head !== undefined && (facts.head === facts.tip || facts.headOnDefault)) return { kind: 'ungated' };
  if (facts.mergeBase === undefined)
    return { kind: 'unreadable', why: 'has no common ancestor with HEAD in this clone' };
  return { kind: 'gated', rev: facts.mergeBase };
}
