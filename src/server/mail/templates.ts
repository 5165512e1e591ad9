import { APP_NAME } from '../../common/spec';
import type { MailMessage } from './mailer';

const escapeHtml = (value: string) =>
  value.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );

/** One plain and one HTML rendering of the same lines; every value is escaped in the HTML. */
function compose(to: string, subject: string, lines: Array<string | { link: string }>, appUrl: string) {
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
  return { to, subject: `${APP_NAME}: ${subject}`, text, html } satisfies MailMessage;
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
