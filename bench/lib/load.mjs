// Load for the browser benches beside what they measure: another person creating tasks on the same
// server, and busy CPUs. Both are bounded in count and time and stop by themselves; the requests go
// only to the app the bench started on loopback.
import { spawn } from 'node:child_process';
import http from 'node:http';
import { ADMIN, request } from './app.mjs';

/** A second account (made by the bench's administrator): its username, password and session headers. */
export async function createPerson(appUrl, firstName) {
  const agent = new http.Agent({ keepAlive: true });
  const admin = await request(agent, 'POST', `${appUrl}/api/auth/login`, { body: ADMIN });
  const { sessionId } = JSON.parse(admin.body);
  const made = await request(agent, 'POST', `${appUrl}/api/admin/users`, {
    headers: { 'user-session': sessionId, origin: appUrl },
    body: { firstName, email: `${firstName.toLowerCase()}-${Date.now()}@example.com` },
  });
  if (made.status !== 201) throw new Error(`creating ${firstName} failed: ${made.body}`);
  const { user, password } = JSON.parse(made.body);
  const login = await request(agent, 'POST', `${appUrl}/api/auth/login`, {
    body: { username: user.username, password },
  });
  if (login.status !== 200) throw new Error(`signing ${firstName} in failed: ${login.body}`);
  agent.destroy();
  return {
    username: user.username,
    password,
    headers: { 'user-session': JSON.parse(login.body).sessionId, origin: appUrl },
  };
}

/**
 * `person` creates tasks in their Inbox at `perSecond` (POST /api/tasks, at most 16 in flight)
 * until `stop()` or `maxSeconds`, whichever comes first. `stop()` resolves with how many were
 * created and the round trips' median once the last is answered.
 */
export function createTasksInBackground(appUrl, person, { perSecond = 100, maxSeconds = 120 } = {}) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  const times = [];
  let inFlight = 0;
  let failed = 0;
  let sent = 0;
  const limit = perSecond * maxSeconds;
  const started = performance.now();
  const send = () => {
    sent++;
    inFlight++;
    const start = performance.now();
    request(agent, 'POST', `${appUrl}/api/tasks`, {
      headers: person.headers,
      body: {
        userId: 1,
        title: `Background task ${sent}`,
        description: '',
        dueDate: null,
        contextId: null,
        completed: false,
        archived: false,
        position: 0,
      },
    })
      .then(
        (response) => {
          if (response.status === 201) times.push(performance.now() - start);
          else failed++;
        },
        () => failed++,
      )
      .finally(() => inFlight--);
  };
  // Each tick catches up with the rate (a late timer under load sends what it owes), 16 in flight at most.
  const tick = () => {
    const owed = Math.min(limit, Math.floor(((performance.now() - started) / 1000) * perSecond));
    while (sent < owed && inFlight < 16) send();
  };
  const timer = setInterval(tick, 10);
  const deadline = setTimeout(() => clearInterval(timer), maxSeconds * 1000);
  deadline.unref();
  return {
    async stop() {
      clearInterval(timer);
      clearTimeout(deadline);
      while (inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 20));
      agent.destroy();
      const sorted = [...times].sort((a, b) => a - b);
      return { created: times.length, failed, medianMs: sorted[Math.floor(sorted.length / 2)] ?? Number.NaN };
    },
  };
}

/**
 * `count` processes spinning a core each, for at most `maxSeconds` (each stops by itself), as the
 * machine was when other work shared it (the load average 7-9). `stop()` ends them early.
 */
export function burnCpus(count, maxSeconds = 600) {
  const children = Array.from({ length: count }, () =>
    spawn(
      process.execPath,
      ['-e', `const end = Date.now() + ${maxSeconds * 1000}; while (Date.now() < end);`],
      {
        stdio: 'ignore',
      },
    ),
  );
  return {
    stop() {
      for (const child of children) if (child.exitCode === null) child.kill();
    },
  };
}
