import { type ProjectRole, roleWithArticle } from '../../common/projects';
import { APP_NAME } from '../../common/spec';
import type { MailMessage } from './mailer';

const escapeHtml = (value: string) =>
  value.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );

/**
 * One plain and one HTML rendering of the same lines; every value is escaped in the HTML. The
 * subject starts with the app's name unless `subjectAsIs` (a subject the contract words exactly).
 */
function compose(
  to: string,
  subject: string,
  lines: Array<string | { link: string }>,
  appUrl: string,
  { subjectAsIs = false } = {},
) {
  const footer = `${APP_NAME} · ${appUrl}`;
  const text = [...lines.map((l) => (typeof l === 'string' ? l : l.link)), '', footer].join('\n');
  const body = lines
    .map((l) =>
      typeof l === 'string'
        ? `<p>${escapeHtml(l)}</p>`
        : `<p><a href="${escapeHtml(l.link)}">${escapeHtml(l.link)}</a></p>`,
    )
    .join('\n');
  const html = `<!doctype html><html><body style="font-family:system-ui,sans-serif;line-height:1.5">
<h2>${escapeHtml(APP_NAME)}</h2>
${body}
<p style="color:#666;font-size:12px">${escapeHtml(footer)}</p>
</body></html>`;
  return { to, subject: subjectAsIs ? subject : `${APP_NAME}: ${subject}`, text, html } satisfies MailMessage;
}

export function passwordResetMail(to: string, username: string, link: string, appUrl: string) {
  return compose(
    to,
    'Reset your password',
    [
      `Hello ${username},`,
      'Someone asked to reset the password of your account. Open this link within one hour to choose a new one:',
      { link },
      'If it was not you, ignore this message: your password stays as it is.',
    ],
    appUrl,
  );
}

export function credentialsMail(
  to: string,
  firstName: string,
  username: string,
  password: string,
  appUrl: string,
  reason: 'created' | 'approved' | 'invite',
) {
  const opening = {
    created: 'An administrator created an account for you.',
    approved: 'Your access request was approved.',
    invite: 'Here are new sign-in details for your account.',
  }[reason];
  return compose(
    to,
    reason === 'approved' ? 'Your access request was approved' : 'Your account',
    [
      `Hello ${firstName},`,
      opening,
      `Username: ${username}`,
      `Password: ${password}`,
      'Sign in here, then change your password from the settings menu:',
      { link: appUrl },
    ],
    appUrl,
  );
}

export function accessDeniedMail(to: string, requestedUsername: string, appUrl: string) {
  return compose(
    to,
    'Your access request',
    [
      `Hello ${requestedUsername},`,
      'An administrator reviewed your access request and did not approve it this time.',
    ],
    appUrl,
  );
}

export function twoFactorResetMail(to: string, firstName: string, appUrl: string) {
  return compose(
    to,
    'Two-factor authentication was turned off',
    [
      `Hello ${firstName},`,
      'An administrator turned off two-factor authentication for your account. You now sign in with your password alone, and your recovery codes no longer work.',
      'To turn it on again, sign in and open Security in the account menu:',
      { link: appUrl },
      'If you did not ask for this, tell your administrator.',
    ],
    appUrl,
  );
}

/** Sent once per lockout of the second step (issue 20). */
export function wrongCodesMail(to: string, firstName: string, pausedMinutes: number, appUrl: string) {
  return compose(
    to,
    'Wrong sign-in codes for your account',
    [
      `Hello ${firstName},`,
      'Someone entered your password and then a wrong code several times. If it was not you, change your password.',
      `Signing in with a code is paused for ${pausedMinutes} minutes. To change your password, sign in and open the account menu:`,
      { link: appUrl },
    ],
    appUrl,
  );
}

/** Someone added the recipient to a project (issue 21): its name and a link that opens it. */
export function projectSharedMail(
  to: string,
  recipientFirstName: string,
  adderFirstName: string,
  projectName: string,
  role: ProjectRole,
  link: string,
  appUrl: string,
) {
  return compose(
    to,
    `${adderFirstName} shared "${projectName}" with you`,
    [
      `Hello ${recipientFirstName},`,
      `${adderFirstName} added you to the project "${projectName}" as ${roleWithArticle(role)}.`,
      'Open it here:',
      { link },
    ],
    appUrl,
    // Issue 21 words the subject exactly.
    { subjectAsIs: true },
  );
}

/**
 * A notification by e-mail (issue 22): its headline as the subject, its body, and a link that opens
 * the task (or the project). `messageId` is the delivery's key, so a message sent twice after a
 * crash is one message to a mail client that removes duplicates.
 */
export function notificationMail(
  to: string,
  recipientFirstName: string,
  headline: string,
  body: string,
  link: string,
  appUrl: string,
  messageId?: string,
) {
  return {
    ...compose(
      to,
      headline,
      [
        `Hello ${recipientFirstName},`,
        ...body.split('\n').filter((line) => line.trim() !== ''),
        'Open it here:',
        { link },
      ],
      appUrl,
    ),
    ...(messageId ? { messageId } : {}),
  };
}

/** The daily digest: tasks overdue, then due today, each with its link. */
export function digestMail(
  to: string,
  recipientFirstName: string,
  headline: string,
  tasks: Array<{ title: string; dueDate: string; overdue: boolean; link: string }>,
  appUrl: string,
  messageId?: string,
) {
  const section = (label: string, list: typeof tasks) =>
    list.length === 0
      ? []
      : [label, ...list.flatMap((task) => [`• ${task.title} (${task.dueDate})`, { link: task.link }])];
  return {
    ...compose(
      to,
      headline,
      [
        `Hello ${recipientFirstName},`,
        ...section(
          'Overdue:',
          tasks.filter((task) => task.overdue),
        ),
        ...section(
          'Due today:',
          tasks.filter((task) => !task.overdue),
        ),
      ],
      appUrl,
    ),
    ...(messageId ? { messageId } : {}),
  };
}

/** A webhook failed this many times in a row and was turned off (issue 24). */
export function webhookTurnedOffMail(
  to: string,
  firstName: string,
  url: string,
  failures: number,
  appUrl: string,
) {
  return compose(
    to,
    'A webhook was turned off',
    [
      `Hello ${firstName},`,
      `Your webhook to ${url} failed ${failures} times in a row, so it was turned off: it gets no events until you turn it on again.`,
      'Check the receiver, then open Integrations in the account menu: its delivery log shows what went wrong, and you can turn it on there.',
      { link: appUrl },
    ],
    appUrl,
  );
}
