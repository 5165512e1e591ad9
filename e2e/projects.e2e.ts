import { expect, it } from 'vitest';
import { PROJECT_COPY } from '../src/client/projects/copy';
import type { Project } from '../src/common/projects';
import { COPY, TOASTS } from '../src/common/spec';
import type { Task } from '../src/common/tasks';
import {
  apiFromPage,
  browserSuite,
  createTaskFromPage,
  describeBrowser,
  dragAnnouncement,
  watchLiveStream,
} from './harness';
import { projectHelpers } from './projects';

/**
 * Issue 21, 'In the browser': the sidebar (a drawer on a phone) with the Inbox, 'Assigned to me' and
 * the projects; 'New project' from the keyboard; a project's screen and its Share dialog, whose
 * controls follow the role; a second person seeing a share, a role change and a removal live;
 * moving a task by the palette and by dragging its card onto the sidebar; g i and g a. Axe on every
 * new screen and dialog, in both themes at desktop and phone widths, is in projects-accessibility.e2e.ts.
 */
describeBrowser('projects in the browser', () => {
  const suite = browserSuite();
  const {
    signedIn,
    newPerson,
    createProject,
    share,
    projectTasks,
    inboxTasks,
    sidebar,
    projectLink,
    shareDialog,
    palette,
    card,
    toast,
    focused,
    openShare,
  } = projectHelpers(suite);

  it('creates a project from the sidebar with the keyboard, and opens its screen', async () => {
    const page = await signedIn();
    const button = sidebar(page).getByRole('button', { name: PROJECT_COPY.newProject, exact: true });
    await button.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: PROJECT_COPY.newProject });
    await dialog.waitFor();
    await expect.poll(() => focused(page)).toBe('input:');
    // Nothing typed: the schema's own message, and no request.
    await dialog.getByRole('button', { name: PROJECT_COPY.createProject }).press('Enter');
    await dialog.getByText('Name is required').waitFor();
    await dialog.getByRole('textbox', { name: PROJECT_COPY.name }).focus();
    await page.keyboard.type('Garden plans');
    // Tab reaches the colour group at the colour chosen; the arrows choose another.
    await page.keyboard.press('Tab');
    await expect.poll(() => focused(page)).toBe('input:Grey');
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => focused(page)).toBe('input:Red');
    for (const _ of ['Grey', 'Brown', 'Pink']) await page.keyboard.press('ArrowLeft');
    await expect.poll(() => focused(page)).toBe('input:Pink');
    await dialog.getByText(`${PROJECT_COPY.colour}: Pink`).waitFor();
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await expect.poll(() => focused(page)).toBe(`button:${PROJECT_COPY.createProject}`);
    await page.keyboard.press('Enter');

    await page.getByRole('heading', { name: 'Garden plans', level: 1 }).waitFor();
    await expect.poll(() => focused(page)).toBe('h1:Garden plans');
    await toast(page, PROJECT_COPY.projectCreated).waitFor();
    const created = (await apiFromPage<Project[]>(page, 'GET', '/api/projects')).find(
      (project) => project.name === 'Garden plans',
    )!;
    expect(created).toMatchObject({ color: 'pink', role: 'owner', archived: false });
    expect(new URL(page.url()).pathname).toBe(`/projects/${created.id}`);
    expect(await projectLink(page, 'Garden plans').getAttribute('aria-current')).toBe('page');
    expect(await page.title()).toBe('Garden plans · Tasklane');
  });

  it('shares a project; the other person sees it, a role change and a removal live, and a viewer gets no controls to change it', async () => {
    const owner = await signedIn();
    const ana = await newPerson(owner, 'Ana Lima');
    const project = await createProject(owner, 'Kitchen remodel');
    await createTaskFromPage(owner, 'Choose tiles', {});
    const [inboxTask] = await inboxTasks(owner);
    await apiFromPage(owner, 'PATCH', `/api/tasks/${inboxTask!.id}`, { projectId: project.id });

    const other = await signedIn(ana.username, ana.password);
    await sidebar(other).getByText(PROJECT_COPY.noProjects).waitFor();

    await owner.goto(`/projects/${project.id}`);
    let dialog = await openShare(owner);
    await dialog.getByRole('textbox', { name: PROJECT_COPY.userField }).fill('nobody-by-that-name');
    await dialog.getByRole('button', { name: PROJECT_COPY.addPerson, exact: true }).click();
    // The server's own words, in the dialog.
    await dialog.getByRole('alert').getByText('No active user with that name or e-mail').waitFor();
    await dialog.getByRole('textbox', { name: PROJECT_COPY.userField }).fill(ana.username);
    await dialog.getByRole('combobox', { name: PROJECT_COPY.role, exact: true }).click();
    await owner.getByRole('option', { name: 'Editor' }).click();
    await dialog.getByRole('button', { name: PROJECT_COPY.addPerson, exact: true }).click();
    const anaRole = dialog.getByRole('combobox', { name: PROJECT_COPY.roleOf(`Ana Lima (${ana.username})`) });
    await anaRole.waitFor();
    expect(await dialog.getByRole('alert').count()).toBe(0);

    // Ana's open suite.browser gets the project without a reload, and can open it as an editor.
    await projectLink(other, 'Kitchen remodel').click();
    await other.getByRole('heading', { name: 'Kitchen remodel', level: 1 }).waitFor();
    await card(other, 'Choose tiles').waitFor();
    await other.getByRole('button', { name: COPY.addTask }).waitFor();
    const members = other.getByRole('list', { name: PROJECT_COPY.members });
    await members.getByRole('img', { name: `Ana Lima (${ana.username}), Editor` }).waitFor();
    await members.getByRole('img', { name: /^admin.*Owner$/ }).waitFor();

    // Made a viewer: the controls that change tasks leave her screen, live.
    await anaRole.click();
    await owner.getByRole('option', { name: 'Viewer' }).click();
    await other.getByRole('button', { name: COPY.addTask }).waitFor({ state: 'detached' });
    const viewerCard = card(other, 'Choose tiles');
    await viewerCard.waitFor();
    for (const control of [
      other.getByRole('textbox', { name: 'Add a task' }),
      viewerCard.getByRole('button', { name: 'Drag to reorder' }),
      viewerCard.getByRole('checkbox'),
      viewerCard.getByRole('button', { name: COPY.deleteTask }),
      viewerCard.getByRole('button', { name: 'Choose tiles', exact: true }),
    ]) {
      expect(await control.count()).toBe(0);
    }
    // A viewer's Share dialog: the members, and Leave; nothing else.
    const viewerDialog = await openShare(other);
    await viewerDialog.getByRole('button', { name: PROJECT_COPY.leave }).waitFor();
    expect(await viewerDialog.getByRole('combobox').count()).toBe(0);
    expect(await viewerDialog.getByRole('textbox').count()).toBe(0);
    expect(await viewerDialog.getByRole('button', { name: /^Remove |^Make .* the owner$/ }).count()).toBe(0);
    for (const name of [PROJECT_COPY.archive, PROJECT_COPY.deleteProject, PROJECT_COPY.save]) {
      expect(await viewerDialog.getByRole('button', { name }).count()).toBe(0);
    }
    await viewerDialog.getByRole('button', { name: 'Close' }).click();
    await viewerDialog.waitFor({ state: 'detached' });

    // Removed: her screen goes to the Inbox and says why.
    dialog = shareDialog(owner);
    await dialog.getByRole('button', { name: PROJECT_COPY.remove(`Ana Lima (${ana.username})`) }).click();
    await owner.getByRole('alertdialog').getByRole('button', { name: 'Remove' }).click();
    await dialog.getByRole('img', { name: `Ana Lima (${ana.username})` }).waitFor({ state: 'detached' });
    await other.getByRole('heading', { name: COPY.yourTasks, level: 1 }).waitFor();
    await toast(other, PROJECT_COPY.gone).waitFor();
    expect(new URL(other.url()).pathname).toBe('/');
    await expect.poll(() => projectLink(other, 'Kitchen remodel').count()).toBe(0);
  });

  it('shows each role only the controls it may use: owner, admin, editor; leaving and archiving', async () => {
    const owner = await signedIn();
    const [bo, cy] = [await newPerson(owner, 'Bo'), await newPerson(owner, 'Cy')];
    const project = await createProject(owner, 'Roles matrix', 'indigo');
    await share(owner, project.id, bo.username, 'admin');
    await share(owner, project.id, cy.username, 'editor');

    // The owner: everything, for everyone else.
    await owner.goto(`/projects/${project.id}`);
    let dialog = await openShare(owner);
    await dialog.getByRole('button', { name: PROJECT_COPY.deleteProject }).waitFor();
    for (const person of [`Bo (${bo.username})`, `Cy (${cy.username})`]) {
      await dialog.getByRole('combobox', { name: PROJECT_COPY.roleOf(person) }).waitFor();
      await dialog.getByRole('button', { name: PROJECT_COPY.makeOwner(person) }).waitFor();
      await dialog.getByRole('button', { name: PROJECT_COPY.remove(person) }).waitFor();
    }
    expect(await dialog.getByRole('button', { name: PROJECT_COPY.leave }).count()).toBe(0);
    await dialog.getByRole('combobox', { name: PROJECT_COPY.role, exact: true }).click();
    expect(await owner.getByRole('option').allInnerTexts()).toEqual([
      'Admin',
      'Editor',
      'Commenter',
      'Viewer',
    ]);
    await owner.keyboard.press('Escape');
    await owner.getByRole('listbox').waitFor({ state: 'detached' });
    await owner.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });

    // An admin: editors and below, rename, archive; not the owner, not delete, not transfer.
    const admin = await signedIn(bo.username, bo.password, { path: `/projects/${project.id}` });
    dialog = await openShare(admin);
    await dialog.getByRole('combobox', { name: PROJECT_COPY.roleOf(`Cy (${cy.username})`) }).waitFor();
    await dialog.getByRole('button', { name: PROJECT_COPY.remove(`Cy (${cy.username})`) }).waitFor();
    expect(await dialog.getByRole('combobox', { name: /^Role of admin/ }).count()).toBe(0);
    expect(await dialog.getByRole('button', { name: /^Remove admin|^Make / }).count()).toBe(0);
    expect(await dialog.getByRole('button', { name: PROJECT_COPY.deleteProject }).count()).toBe(0);
    await dialog.getByRole('button', { name: PROJECT_COPY.leave }).waitFor();
    await dialog.getByRole('combobox', { name: PROJECT_COPY.role, exact: true }).click();
    expect(await admin.getByRole('option').allInnerTexts()).toEqual(['Editor', 'Commenter', 'Viewer']);
    await admin.keyboard.press('Escape');
    await admin.getByRole('listbox').waitFor({ state: 'detached' });
    // Rename and recolour.
    await dialog.getByRole('textbox', { name: PROJECT_COPY.projectName }).fill('Roles, renamed');
    await dialog.getByRole('radio', { name: 'Orange' }).check();
    await dialog.getByRole('button', { name: PROJECT_COPY.save }).click();
    await toast(admin, PROJECT_COPY.saved).waitFor();
    await dialog.getByRole('heading', { name: 'Share “Roles, renamed”' }).waitFor();
    await projectLink(owner, 'Roles, renamed').waitFor();
    expect(await owner.getByRole('heading', { level: 1 }).textContent()).toBe('Roles, renamed');

    // An editor: the members and Leave.
    const editor = await signedIn(cy.username, cy.password, { path: `/projects/${project.id}` });
    await editor.getByRole('button', { name: COPY.addTask }).waitFor();
    dialog = await openShare(editor);
    await dialog.getByRole('button', { name: PROJECT_COPY.leave }).waitFor();
    expect(await dialog.getByRole('combobox').count()).toBe(0);
    expect(await dialog.getByRole('button', { name: PROJECT_COPY.archive }).count()).toBe(0);
    await dialog.getByRole('button', { name: PROJECT_COPY.leave }).click();
    await editor.getByRole('alertdialog').getByRole('button', { name: PROJECT_COPY.leave }).click();
    await editor.getByRole('heading', { name: COPY.yourTasks, level: 1 }).waitFor();
    await toast(editor, PROJECT_COPY.left('Roles, renamed')).waitFor();
    await expect.poll(() => projectLink(editor, 'Roles, renamed').count()).toBe(0);

    // The admin archives it: it moves under 'Archived projects', read-only, with Restore only.
    dialog = shareDialog(admin);
    await dialog.getByRole('button', { name: PROJECT_COPY.archive }).click();
    await dialog.getByRole('button', { name: PROJECT_COPY.restore }).waitFor();
    expect(await dialog.getByRole('textbox').count()).toBe(0);
    await dialog.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'detached' });
    await admin.getByText(PROJECT_COPY.archivedNotice).waitFor();
    expect(await admin.getByRole('button', { name: COPY.addTask }).count()).toBe(0);
    // Folded away, unless the project shown is archived.
    const archived = sidebar(owner).getByRole('button', { name: new RegExp(PROJECT_COPY.archivedProjects) });
    await archived.waitFor();
    expect(await archived.getAttribute('aria-expanded')).toBe('true');
    await owner.keyboard.press('g');
    await owner.keyboard.press('i');
    await owner.getByRole('heading', { name: COPY.yourTasks, level: 1 }).waitFor();
    await owner.reload();
    await archived.waitFor();
    expect(await archived.getAttribute('aria-expanded')).toBe('false');
    await archived.click();
    await projectLink(owner, 'Roles, renamed').click();
    await owner.locator('main').getByText(PROJECT_COPY.archivedNotice).waitFor();
    dialog = await openShare(owner);
    expect(await dialog.getByRole('button', { name: PROJECT_COPY.deleteProject }).count()).toBe(0);
    await dialog.getByRole('button', { name: PROJECT_COPY.restore }).click();
    await dialog.getByRole('button', { name: PROJECT_COPY.archive }).waitFor();

    // The owner deletes it: everyone's screen goes to the Inbox.
    await dialog.getByRole('button', { name: PROJECT_COPY.deleteProject }).click();
    await owner.getByRole('alertdialog').getByRole('button', { name: PROJECT_COPY.deleteProject }).click();
    await owner.getByRole('heading', { name: COPY.yourTasks, level: 1 }).waitFor();
    await toast(owner, PROJECT_COPY.deleted('Roles, renamed')).waitFor();
    await admin.getByRole('heading', { name: COPY.yourTasks, level: 1 }).waitFor();
    await toast(admin, PROJECT_COPY.gone).waitFor();
  });

  it('adds a task on a project screen into that project; moves tasks by the palette and by dragging onto the sidebar', async () => {
    const page = await signedIn();
    const errands = await createProject(page, 'Errands', 'green');
    const garden = await createProject(page, 'Garden', 'orange');
    for (const task of await inboxTasks(page)) await apiFromPage(page, 'DELETE', `/api/tasks/${task.id}`);
    await createTaskFromPage(page, 'Post the letter');
    await createTaskFromPage(page, 'Buy milk');
    await page.reload();
    await card(page, 'Buy milk').waitFor();

    // The palette moves the focused task; focus goes on to the next card.
    await page.keyboard.press('j');
    await expect.poll(() => focused(page)).toBe('article:Buy milk');
    await page.keyboard.press('Control+k');
    await palette(page).waitFor();
    await page.keyboard.type('move task');
    await palette(page).getByRole('option', { name: PROJECT_COPY.moveTaskTo }).waitFor();
    await page.keyboard.press('Enter');
    const target = palette(page).getByRole('option', { name: /^Errands/ });
    await target.waitFor();
    // The Inbox is where it is: not offered.
    expect(await palette(page).getByRole('option', { name: COPY.yourTasks }).count()).toBe(0);
    await page.keyboard.type('err');
    await page.keyboard.press('Enter');
    await card(page, 'Buy milk').waitFor({ state: 'detached' });
    await toast(page, PROJECT_COPY.taskMoved).waitFor();
    await expect.poll(() => focused(page)).toBe('article:Post the letter');
    expect((await projectTasks(page, errands.id)).map((task) => task.title)).toEqual(['Buy milk']);
    // The counts follow.
    await sidebar(page).getByRole('link', { name: 'Errands, 1 task', exact: true }).waitFor();

    // Dragged onto a project in the sidebar: the one under the pointer, though the wide card's
    // centre is elsewhere.
    const handle = card(page, 'Post the letter').getByRole('button', { name: 'Drag to reorder' });
    const from = (await handle.boundingBox())!;
    const to = (await projectLink(page, 'Garden').boundingBox())!;
    const moved = page.waitForResponse(
      (response) => response.request().method() === 'PATCH' && /\/api\/tasks\/\d+$/.test(response.url()),
    );
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
    await page.mouse.down();
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2 + 10, { steps: 3 });
    await expect.poll(() => dragAnnouncement(page)).toMatch(/lifted/);
    await page.mouse.move(to.x + to.width / 2, to.y + to.height / 2, { steps: 15 });
    const lit = sidebar(page).locator('li.ring-2');
    await expect.poll(() => lit.count()).toBe(1);
    expect(await lit.getByRole('link').textContent()).toMatch(/^Garden/);
    await page.mouse.up();
    expect((await moved).ok()).toBe(true);
    await card(page, 'Post the letter').waitFor({ state: 'detached' });
    await page.getByText(COPY.noTasks).waitFor();
    expect((await projectTasks(page, garden.id)).map((task) => task.title)).toEqual(['Post the letter']);
    expect(await inboxTasks(page)).toEqual([]);
    await expect.poll(() => lit.count()).toBe(0);

    // On the project's screen, quick add puts the task there, not in the Inbox.
    await projectLink(page, 'Errands').click();
    await card(page, 'Buy milk').waitFor();
    await page.getByRole('textbox', { name: 'Add a task' }).fill('Return the books');
    await page.getByRole('textbox', { name: 'Add a task' }).press('Enter');
    await card(page, 'Return the books').waitFor();
    await toast(page, TOASTS.taskCreated).waitFor();
    expect((await projectTasks(page, errands.id)).map((task) => task.title)).toContain('Return the books');
    expect(await inboxTasks(page)).toEqual([]);

    // Back to the Inbox by the palette: Errands' card goes there by drag too.
    const back = card(page, 'Return the books').getByRole('button', { name: 'Drag to reorder' });
    const start = (await back.boundingBox())!;
    const inbox = (await sidebar(page)
      .getByRole('link', { name: new RegExp(`^${COPY.yourTasks}`) })
      .boundingBox())!;
    await page.mouse.move(start.x + start.width / 2, start.y + start.height / 2);
    await page.mouse.down();
    await page.mouse.move(start.x + start.width / 2, start.y + start.height / 2 + 10, { steps: 3 });
    await expect.poll(() => dragAnnouncement(page)).toMatch(/lifted/);
    await page.mouse.move(inbox.x + inbox.width / 2, inbox.y + inbox.height / 2, { steps: 15 });
    await page.mouse.up();
    await card(page, 'Return the books').waitFor({ state: 'detached' });
    await expect
      .poll(async () => (await inboxTasks(page)).map((task) => task.title))
      .toEqual(['Return the books']);
  });

  it("goes to the Inbox with g i and to 'Assigned to me' with g a; the shortcuts dialog lists them", async () => {
    const page = await signedIn();
    const me = (await apiFromPage<{ user: { id: number } }>(page, 'GET', '/api/auth/me')).user;
    const chores = await createProject(page, 'Chores', 'yellow');
    const task = await apiFromPage<Task>(page, 'POST', '/api/tasks', {
      title: 'Water plants',
      projectId: chores.id,
    });
    await apiFromPage(page, 'PATCH', `/api/tasks/${task.id}`, { assigneeIds: [me.id] });
    await page.goto(`/projects/${chores.id}`);
    await page.getByRole('heading', { name: 'Chores', level: 1 }).waitFor();

    await page.keyboard.press('g');
    await page.keyboard.press('a');
    await page.getByRole('heading', { name: PROJECT_COPY.assignedToMe, level: 1 }).waitFor();
    await card(page, 'Water plants').waitFor();
    expect(new URL(page.url()).pathname).toBe('/assigned');
    expect(
      await sidebar(page).getByRole('link', { name: PROJECT_COPY.assignedToMe }).getAttribute('aria-current'),
    ).toBe('page');
    // Across projects, no order to change.
    expect(await card(page, 'Water plants').getByRole('button', { name: 'Drag to reorder' }).count()).toBe(0);

    await page.keyboard.press('g');
    await page.keyboard.press('i');
    await page.getByRole('heading', { name: COPY.yourTasks, level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/');
    // 'g' then another key is not a shortcut: 'n' still opens Add Task.
    await page.keyboard.press('g');
    await page.keyboard.press('n');
    await page.getByRole('dialog', { name: COPY.addNewTask }).waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog', { name: COPY.addNewTask }).waitFor({ state: 'detached' });

    await page.keyboard.press('?');
    const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await help.getByText('Go to Your Tasks (your Inbox)').waitFor();
    await help.getByText('Go to Assigned to me').waitFor();
  });

  it('keeps the live stream on while moving between screens', async () => {
    const page = await signedIn();
    const { listening } = await watchLiveStream(page);
    await page.reload();
    await listening;
    let streams = 0;
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/api/events') streams += 1;
    });
    const project = await createProject(page, 'Stream test');
    await projectLink(page, 'Stream test').click();
    await page.getByRole('heading', { name: 'Stream test', level: 1 }).waitFor();
    await sidebar(page).getByRole('link', { name: PROJECT_COPY.assignedToMe }).click();
    await page.getByRole('heading', { name: PROJECT_COPY.assignedToMe, level: 1 }).waitFor();
    await page.getByRole('link', { name: new RegExp(`^${COPY.yourTasks}`) }).click();
    await page.getByRole('heading', { name: COPY.yourTasks, level: 1 }).waitFor();
    expect(streams).toBe(0);
    // A project that is not the person's: the Inbox, saying so.
    await page.goto('/projects/987654');
    await toast(page, PROJECT_COPY.notFound).waitFor();
    await page.getByRole('heading', { name: COPY.yourTasks, level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/');
    // The mail's link (/?project=N) opens the project.
    await page.goto(`/?project=${project.id}`);
    await page.getByRole('heading', { name: 'Stream test', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/projects/${project.id}`);
  });
});
