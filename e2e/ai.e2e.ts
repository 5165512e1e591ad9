import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import type { Agent } from '../src/common/agents';
import { AI_RUN_COPY, type AiRun } from '../src/common/ai-runs';
import { COPY, ERRORS, TOASTS, VALIDATION } from '../src/common/spec';
import type { Task } from '../src/common/tasks';
import { PROPOSAL_INSTRUCTIONS } from '../src/server/agents/proposals';
import { type FakeProvider, startFakeProvider } from '../src/server/testing/fake-provider';
import {
  apiFromPage,
  describeBrowser,
  expectAccessible,
  launchBrowser,
  type OpenPage,
  openPage,
  type RunningServer,
  screenshot,
  signIn,
  startServer,
} from './harness';

/** AI agents and AI drafts (spec §2, §4, §8), against a local server speaking the OpenAI protocol. */
describeBrowser('AI agents and drafts in the browser', () => {
  let fake: FakeProvider;
  let server: RunningServer;
  let browser: Browser;
  let opened: OpenPage;
  let page: Page;

  beforeAll(async () => {
    fake = await startFakeProvider();
    [server, browser] = await Promise.all([
      startServer({ OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: fake.baseUrl }),
      launchBrowser(),
    ]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await fake?.close();
  });
  beforeEach(async () => {
    fake.reset();
    opened = await openPage(browser, server);
    page = opened.page;
    await signIn(page);
    // Each test starts from no tasks and no agents.
    for (const task of await apiFromPage<Task[]>(page, 'GET', '/api/tasks')) {
      await apiFromPage(page, 'DELETE', `/api/tasks/${task.id}`);
    }
    for (const agent of await apiFromPage<Agent[]>(page, 'GET', '/api/ai-agents')) {
      await apiFromPage(page, 'DELETE', `/api/ai-agents/${agent.id}`);
    }
  });
  afterEach(async () => {
    expect(opened.errors).toEqual([]);
    await opened.context.close();
  });

  const toast = (text: string) =>
    page
      .getByRole('region', { name: /Notifications/ })
      .getByRole('listitem')
      .filter({ hasText: text })
      .first();
  const card = (title: string) => page.getByRole('article', { name: title, exact: true });
  const draftBox = (title: string) => card(title).getByRole('region', { name: COPY.aiDraft });

  async function openMenuItem(name: string) {
    await page.getByRole('button', { name: /^Settings for / }).click();
    await page.getByRole('menuitem', { name }).click();
  }

  /** A task made through the API, then shown expanded on a fresh load. */
  async function expandedTask(
    title: string,
    body: Record<string, unknown> = {},
    notes?: string,
  ): Promise<Task> {
    const task = await apiFromPage<Task>(page, 'POST', '/api/tasks', {
      title,
      description: 'Three paragraphs for the blog',
      ...body,
    });
    if (notes) await apiFromPage(page, 'PATCH', `/api/tasks/${task.id}`, { notes });
    await page.reload();
    await card(title).getByRole('button', { name: 'Expand task' }).click();
    return task;
  }

  const selectedLabel = (select: Locator) =>
    select.evaluate((el: HTMLSelectElement) => el.selectedOptions[0]?.text);
  const stored = (id: number) => apiFromPage<Task>(page, 'GET', `/api/tasks/${id}`);
  /** Waits until the server has finished the task's latest run as cancelled: by then any draft would be stored. */
  const runCancelled = (id: number) =>
    expect
      .poll(async () => (await apiFromPage<AiRun[]>(page, 'GET', `/api/tasks/${id}/ai-runs`))[0]?.status)
      .toBe('cancelled');

  it('creates, edits and deletes an agent in the AI Agents dialog', async () => {
    await openMenuItem(COPY.aiAgents);
    const dialog = page.getByRole('dialog', { name: COPY.aiAgents });
    await dialog.getByRole('tab', { name: COPY.manageAgents, selected: true }).waitFor();

    await dialog.getByRole('button', { name: 'Create Agent' }).click();
    await dialog.getByText(VALIDATION.agentTitleRequired).waitFor();
    await dialog.getByText(VALIDATION.agentPromptRequired).waitFor();

    await dialog.getByLabel('Title').fill('Blog Editor');
    await dialog.getByLabel('Instructions').fill('You are a careful editor. Answer in short paragraphs.');
    await dialog.getByRole('button', { name: 'Create Agent' }).click();
    await dialog.getByRole('listitem').filter({ hasText: 'Blog Editor' }).waitFor();
    await screenshot(page, 'ai-agents-dialog');

    await dialog.getByRole('button', { name: 'Edit Blog Editor' }).click();
    await dialog.getByLabel('Title').fill('Copy Editor');
    await dialog.getByRole('button', { name: 'Save Changes' }).click();
    await dialog.getByRole('listitem').filter({ hasText: 'Copy Editor' }).waitFor();
    expect((await apiFromPage<Agent[]>(page, 'GET', '/api/ai-agents')).map((a) => a.title)).toEqual([
      'Copy Editor',
    ]);

    await dialog.getByRole('tab', { name: COPY.tutorial }).click();
    await dialog.getByText('Give it a role').waitFor();
    await dialog.getByRole('tab', { name: COPY.manageAgents }).click();

    await dialog.getByRole('button', { name: 'Delete Copy Editor' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Delete' }).click();
    await dialog.getByText('No agents yet').waitFor();
    expect(await apiFromPage<Agent[]>(page, 'GET', '/api/ai-agents')).toEqual([]);
  });

  it('assigns an agent on a card, streams a draft in, and moves it to notes', async () => {
    const agent = await apiFromPage<Agent>(page, 'POST', '/api/ai-agents', {
      title: 'Blog Editor',
      prompt: 'You are a careful editor.',
    });
    const task = await expandedTask('Write the launch post', {}, 'Earlier note');

    const picker = card('Write the launch post').getByLabel('Agent');
    expect(await selectedLabel(picker)).toBe(COPY.noAgent);
    await picker.selectOption({ label: 'Blog Editor' });
    await toast(TOASTS.contextUpdated)
      .filter({ hasText: TOASTS.contextSwitched('Blog Editor') })
      .waitFor();
    expect((await stored(task.id)).contextId).toBe(agent.id);

    fake.behaviour.chunks = ['First line of the draft. ', 'Second ', 'part, ', 'third ', 'part.'];
    fake.behaviour.chunkDelayMs = 300;
    await card('Write the launch post').getByRole('button', { name: COPY.aiDraft }).click();
    const busy = card('Write the launch post').getByRole('status').filter({ hasText: COPY.aiBusy });
    await busy.waitFor();
    // The draft fills in while the run is still going.
    await draftBox('Write the launch post').getByText('First line of the draft.').waitFor();
    expect(await busy.isVisible()).toBe(true);
    await screenshot(page, 'ai-draft-streaming');
    await toast(TOASTS.taskExecuted[0]).filter({ hasText: TOASTS.taskExecuted[1] }).waitFor();
    await busy.waitFor({ state: 'detached' });
    await draftBox('Write the launch post')
      .getByText('First line of the draft. Second part, third part.')
      .waitFor();
    expect(fake.requests.at(-1)!.body.messages).toEqual([
      { role: 'system', content: `You are a careful editor.\n\n${PROPOSAL_INSTRUCTIONS}` },
      { role: 'user', content: 'Task: Write the launch post\n\nDescription: Three paragraphs for the blog' },
    ]);
    expect(fake.requests.at(-1)!.headers.authorization).toBe('Bearer test-key');
    expect(await stored(task.id)).toMatchObject({
      aiDraft: 'First line of the draft. Second part, third part.',
      aiAssisted: true,
    });
    await screenshot(page, 'ai-draft-done');

    await draftBox('Write the launch post').getByRole('button', { name: 'Move to Notes' }).click();
    await toast(TOASTS.draftMoved[0]).filter({ hasText: TOASTS.draftMoved[1] }).waitFor();
    await draftBox('Write the launch post').waitFor({ state: 'detached' });
    const notes = 'Earlier note\n\nFirst line of the draft. Second part, third part.';
    expect(await card('Write the launch post').getByRole('textbox', { name: 'Notes' }).inputValue()).toBe(
      notes,
    );
    expect(await stored(task.id)).toMatchObject({ notes, aiDraft: null, aiAssisted: false });
  });

  it('shows the changes a run proposes; applying one changes the card, dismissing leaves it; the run is in AI activity', async () => {
    const task = await expandedTask('Write the launch post');
    const title = 'Write the launch post';
    fake.behaviour.toolCalls = [
      { name: 'set_due_date', arguments: JSON.stringify({ dueDate: '2027-08-13' }) },
      { name: 'rename_task', arguments: JSON.stringify({ title: 'Write the big announcement' }) },
      { name: 'add_checklist_items', arguments: JSON.stringify({ items: ['Outline', 'Review'] }) },
      { name: 'append_notes', arguments: JSON.stringify({ text: 'Mention the beta testers.' }) },
    ];
    fake.behaviour.usage = { prompt_tokens: 300, completion_tokens: 45 };
    await card(title).getByRole('button', { name: COPY.aiDraft }).click();
    await toast(TOASTS.taskExecuted[0]).waitFor();
    const proposals = card(title).getByRole('region', { name: AI_RUN_COPY.proposals });
    const dueLine = 'Set due date to Fri 13 August 2027';
    await proposals.getByText(dueLine).waitFor();
    await proposals.getByRole('button', { name: AI_RUN_COPY.applyAll }).waitFor();
    // The draft and the proposals together, in both themes.
    await expectAccessible(page, 'proposals light', 'article');
    await screenshot(page, 'ai-proposals-light');
    await page.evaluate(() => localStorage.setItem('theme', 'dark'));
    await page.reload();
    await card(title).getByRole('button', { name: 'Expand task' }).click();
    await proposals.getByText(dueLine).waitFor();
    await expectAccessible(page, 'proposals dark', 'article');
    await screenshot(page, 'ai-proposals-dark');
    // At phone width (in a browser of its own) each line wraps above its buttons, and nothing
    // scrolls sideways.
    const phone = await openPage(browser, server, '/', { viewport: { width: 390, height: 844 } });
    try {
      await signIn(phone.page);
      const phoneCard = phone.page.getByRole('article', { name: title, exact: true });
      await phoneCard.getByRole('button', { name: 'Expand task' }).click();
      await phoneCard.getByRole('region', { name: AI_RUN_COPY.proposals }).getByText(dueLine).waitFor();
      await expectAccessible(phone.page, 'proposals light, phone', 'article');
      expect(
        await phone.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
      ).toBeLessThanOrEqual(0);
      await screenshot(phone.page, 'ai-proposals-phone');
    } finally {
      await phone.context.close();
    }

    await proposals.getByRole('button', { name: `${AI_RUN_COPY.apply}: ${dueLine}` }).click();
    await toast(AI_RUN_COPY.applied).filter({ hasText: dueLine }).waitFor();
    await proposals.getByText(dueLine).waitFor({ state: 'detached' });
    // Focus moves on to the next proposal's Apply, so the list can be worked from the keyboard.
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label')))
      .toMatch(/^Apply: Rename to/);
    const shown = await page.evaluate(() => new Date(2027, 7, 13).toLocaleDateString());
    // The card's due date (the first; the activity below says it was set to that date too).
    await card(title).getByText(shown).first().waitFor();
    expect((await stored(task.id)).dueDate).toBe('2027-08-13');

    // Dismissed from the keyboard: Tab from Apply to Dismiss, then Enter.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toMatch(
      /^Dismiss: Rename to/,
    );
    await page.keyboard.press('Enter');
    await toast(AI_RUN_COPY.dismissed).waitFor();
    await proposals.getByText(/Rename to/).waitFor({ state: 'detached' });
    expect((await stored(task.id)).title).toBe(title);

    await proposals.getByRole('button', { name: AI_RUN_COPY.applyAll }).click();
    await toast(AI_RUN_COPY.appliedAll(2)).waitFor();
    await proposals.waitFor({ state: 'detached' });
    const checklist = card(title).getByRole('region', { name: 'Checklist' });
    await checklist.getByRole('checkbox', { name: 'Outline' }).waitFor();
    await checklist.getByRole('checkbox', { name: 'Review' }).waitFor();
    expect(await card(title).getByRole('textbox', { name: 'Notes' }).inputValue()).toBe(
      'Mention the beta testers.',
    );

    const activity = card(title).getByRole('region', { name: AI_RUN_COPY.activity });
    await activity.getByText(/No agent · gpt-4o-mini · done · 345 tokens/).waitFor();
    const [run] = await apiFromPage<AiRun[]>(page, 'GET', `/api/tasks/${task.id}/ai-runs`);
    expect(run!.proposals.map((p) => p.status)).toEqual(['applied', 'dismissed', 'applied', 'applied']);
  });

  it('deletes a draft, and switches back to no agent', async () => {
    const agent = await apiFromPage<Agent>(page, 'POST', '/api/ai-agents', {
      title: 'Planner',
      prompt: 'Plan.',
    });
    const task = await expandedTask('Plan the sprint', { contextId: agent.id });
    await card('Plan the sprint').getByRole('button', { name: COPY.aiDraft }).click();
    await toast(TOASTS.taskExecuted[0]).waitFor();
    await draftBox('Plan the sprint').getByText('Here is the draft.').waitFor();
    await page.evaluate(() => localStorage.setItem('theme', 'dark'));
    await page.reload();
    await card('Plan the sprint').getByRole('button', { name: 'Expand task' }).click();
    await draftBox('Plan the sprint').waitFor();
    await screenshot(page, 'ai-draft-dark');

    await draftBox('Plan the sprint').getByRole('button', { name: COPY.deleteDraft }).hover();
    await page.getByRole('tooltip', { name: COPY.deleteDraft }).waitFor();
    // Pressed from the keyboard with the pointer on the card's top edge: the card shrinks from the
    // bottom as the draft goes, and a pointer left below it would, as the spec says, collapse it.
    await card('Plan the sprint').hover({ position: { x: 12, y: 12 } });
    await draftBox('Plan the sprint').getByRole('button', { name: COPY.deleteDraft }).focus();
    await page.keyboard.press('Enter');
    await toast(TOASTS.draftDeleted[0]).filter({ hasText: TOASTS.draftDeleted[1] }).waitFor();
    await draftBox('Plan the sprint').waitFor({ state: 'detached' });
    expect(await stored(task.id)).toMatchObject({ aiDraft: null, aiAssisted: false });

    expect(await selectedLabel(card('Plan the sprint').getByLabel('Agent'))).toBe('Planner');
    await card('Plan the sprint').getByLabel('Agent').selectOption({ label: COPY.noAgent });
    await toast(TOASTS.contextUpdated)
      .filter({ hasText: TOASTS.contextSwitched(COPY.noAgentLower) })
      .waitFor();
    expect((await stored(task.id)).contextId).toBeNull();
  });

  /** What has focus: its tag and accessible label or text. */
  const focused = () =>
    page.evaluate(() => {
      const el = document.activeElement;
      if (!el || el === document.body) return 'body';
      return `${el.tagName.toLowerCase()}:${el.getAttribute('aria-label') ?? el.textContent?.trim() ?? ''}`;
    });

  it('moves focus to Cancel while a run streams, to the draft when done, and to the notes after Move to Notes', async () => {
    await expandedTask('Focus the draft');
    fake.behaviour.chunks = ['One. ', 'Two. ', 'Three.'];
    fake.behaviour.chunkDelayMs = 400;
    await card('Focus the draft').getByRole('button', { name: COPY.aiDraft }).click();
    await expect.poll(focused).toBe('button:Cancel');
    await toast(TOASTS.taskExecuted[0]).waitFor();
    await expect.poll(focused).toBe(`section:${COPY.aiDraft}`);
    await draftBox('Focus the draft').getByRole('button', { name: 'Move to Notes' }).click();
    await draftBox('Focus the draft').waitFor({ state: 'detached' });
    const notesId = await card('Focus the draft').getByRole('textbox', { name: 'Notes' }).getAttribute('id');
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe(notesId);
  });

  for (const how of ['collapsing the card', 'leaving the page'] as const) {
    it(`cancels a run in progress on ${how}: the provider call is ended and no draft is stored`, async () => {
      const task = await expandedTask(`Left mid-run by ${how}`);
      fake.behaviour.chunks = Array.from({ length: 40 }, (_, i) => `piece ${i} `);
      fake.behaviour.chunkDelayMs = 200;
      const providerCallEnded = fake.streamAborted();
      await card(task.title).getByRole('button', { name: COPY.aiDraft }).click();
      await draftBox(task.title).getByText('piece 0').waitFor();
      if (how === 'collapsing the card') {
        await card(task.title).getByRole('button', { name: 'Collapse task' }).click();
      } else {
        await page.getByRole('link', { name: 'View archive' }).click();
        await page.getByRole('heading', { name: COPY.archiveOverview }).waitFor();
      }
      await providerCallEnded;
      await runCancelled(task.id);
      expect((await stored(task.id)).aiDraft).toBeNull();
    });
  }

  it('cancels a run, and reports a failed one, storing nothing', async () => {
    const task = await expandedTask('Draft the FAQ');
    fake.behaviour.chunks = Array.from({ length: 40 }, (_, i) => `piece ${i} `);
    fake.behaviour.chunkDelayMs = 200;
    await card('Draft the FAQ').getByRole('button', { name: COPY.aiDraft }).click();
    await draftBox('Draft the FAQ').getByText('piece 0').waitFor();
    await card('Draft the FAQ').getByRole('button', { name: 'Cancel' }).click();
    await card('Draft the FAQ')
      .getByRole('status')
      .filter({ hasText: COPY.aiBusy })
      .waitFor({ state: 'detached' });
    await draftBox('Draft the FAQ').waitFor({ state: 'detached' });
    await runCancelled(task.id);
    expect((await stored(task.id)).aiDraft).toBeNull();

    fake.reset();
    Object.assign(fake.behaviour, {
      mode: 'error',
      errorStatus: 503,
      errorMessage: 'Upstream model overloaded',
    });
    await card('Draft the FAQ').getByRole('button', { name: COPY.aiDraft }).click();
    // The provider's own words, in the toast and in the card's AI activity (issue 20).
    const why = 'The AI provider answered 503: Upstream model overloaded';
    await toast(ERRORS.aiErrorTitle).filter({ hasText: ERRORS.aiExecute }).filter({ hasText: why }).waitFor();
    await card('Draft the FAQ').getByRole('region', { name: AI_RUN_COPY.activity }).getByText(why).waitFor();
    expect((await stored(task.id)).aiDraft).toBeNull();
  });

  it('without a provider: no AI Draft button; a user connects a key and removes it', async () => {
    const bare = await startServer({ AI_ALLOW_PRIVATE_BASE_URLS: 'true' });
    const other = await openPage(browser, bare);
    try {
      page = other.page;
      await signIn(page);
      await expandedTask('Offline task');
      await card('Offline task').getByLabel('Agent').waitFor();
      expect(await card('Offline task').getByRole('button', { name: COPY.aiDraft }).count()).toBe(0);

      await openMenuItem('Connect AI');
      const dialog = page.getByRole('dialog', { name: 'Connect AI' });
      await dialog.getByText('Not connected').waitFor();
      await dialog.getByLabel('API Key').fill('sk-mine-wxyz');
      await dialog.getByLabel('Base URL (optional)').fill(fake.baseUrl);
      await dialog.getByRole('button', { name: 'Save' }).click();
      await dialog.getByText('Connected with your key ending ••••wxyz').waitFor();
      expect(await dialog.getByLabel('API Key').inputValue()).toBe('');
      await screenshot(page, 'ai-connect-dialog');
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });

      await card('Offline task').getByRole('button', { name: 'Expand task' }).click();
      await card('Offline task').getByRole('button', { name: COPY.aiDraft }).click();
      await toast(TOASTS.taskExecuted[0]).waitFor();
      expect(fake.requests.at(-1)!.headers.authorization).toBe('Bearer sk-mine-wxyz');

      // Removed behind the page's back (another tab): the next run says AI is not connected.
      await apiFromPage(page, 'DELETE', '/api/ai/connection');
      await card('Offline task').getByRole('button', { name: COPY.aiDraft }).click();
      await toast(ERRORS.aiNotConnectedTitle).filter({ hasText: ERRORS.aiNotConnected }).waitFor();
      expect(other.errors).toEqual([]);
    } finally {
      page = opened.page;
      await other.context.close();
      await bare.stop();
    }
  });
});
