import { expect } from 'vitest';
import { type ProjectRole, roleAtLeast } from '../../common/projects';
import type { TestApp, TestUser } from './app';

/**
 * A project shared with one person of each role, and a non-member, for tests of the role table
 * (issue 21, decision 029) route by route.
 */

export const MEMBER_ROLES = ['admin', 'editor', 'commenter', 'viewer'] as const;
export type Caller = ProjectRole | 'non-member';
export const CALLERS: Caller[] = ['owner', ...MEMBER_ROLES, 'non-member'];

export type Team = Record<Caller, TestUser>;

/** One person per caller: the owner, a member of each role, and one who is in no shared project. */
export async function signUpTeam(t: TestApp): Promise<Team> {
  const entries = await Promise.all(CALLERS.map(async (caller) => [caller, await t.signUp()] as const));
  return Object.fromEntries(entries) as Team;
}

/** A new project of team.owner's, shared through the API with each member role; its id. */
export async function shareProject(team: Team, name = 'Team'): Promise<number> {
  const created = await team.owner.request('POST', '/api/projects', { name });
  expect(created.statusCode, created.body).toBe(201);
  const projectId = (created.json() as { id: number }).id;
  for (const role of MEMBER_ROLES) {
    const added = await team.owner.request('POST', `/api/projects/${projectId}/members`, {
      user: team[role].user.username,
      role,
    });
    expect(added.statusCode, added.body).toBe(201);
  }
  return projectId;
}

/** The answer each caller gets from a route that needs `least`: `ok` from it up, 403 below, 404 for a non-member. */
export const expectedAnswers = (least: ProjectRole, ok: number): Record<Caller, number> =>
  Object.fromEntries(
    CALLERS.map((caller) => [caller, caller === 'non-member' ? 404 : roleAtLeast(caller, least) ? ok : 403]),
  ) as Record<Caller, number>;

/** The query keys each caller's open streams are told, from now until `stop()`. */
export async function listenToTeam(t: TestApp, team: Team) {
  const heard = Object.fromEntries(CALLERS.map((caller) => [caller, [] as string[]])) as Record<
    Caller,
    string[]
  >;
  const stops = await Promise.all(
    CALLERS.map((caller) =>
      t.ctx.live.subscribe(team[caller].user.id, {
        onEvent: (keys) => heard[caller].push(...keys),
        onInterrupted: () => {},
      }),
    ),
  );
  return {
    heard,
    stop: () => {
      for (const stop of stops) stop();
    },
  };
}
