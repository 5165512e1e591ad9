import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { startSmtpServer } from '../testing/smtp';
import { createMailer } from './mailer';

const logger = pino({ level: 'silent' });
const message = { to: 'ana@example.com', subject: 'Welcome', text: 'Hello Ana', html: '<p>Hello Ana</p>' };

describe('the mailer', () => {
  const folders: string[] = [];
  afterEach(() => {
    for (const folder of folders.splice(0)) fs.rmSync(folder, { recursive: true, force: true });
  });

  it('writes each message to DATA_DIR/outbox as an .eml file when SMTP_URL is unset', async () => {
    const outboxDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-outbox-')), 'outbox');
    folders.push(path.dirname(outboxDir));
    const mailer = createMailer({ from: 'Tasklane <tasklane@example.com>', outboxDir, logger });
    await mailer.send(message);
    await mailer.send({ ...message, subject: 'Second' });
    const files = fs.readdirSync(outboxDir).filter((name) => name.endsWith('.eml'));
    expect(files).toHaveLength(2);
    const contents = files.map((name) => fs.readFileSync(path.join(outboxDir, name), 'utf8')).join('\n');
    expect(contents).toContain('To: ana@example.com');
    expect(contents).toContain('Subject: Welcome');
    expect(contents).toContain('Subject: Second');
    expect(contents).toContain('Hello Ana');
    mailer.close();
  });

  it('sends over SMTP when SMTP_URL is set', async () => {
    const smtp = await startSmtpServer();
    try {
      const mailer = createMailer({
        smtpUrl: smtp.url,
        from: 'tasklane@example.com',
        outboxDir: '/nonexistent',
        logger,
      });
      await mailer.send(message);
      const [mail] = await smtp.waitFor(1);
      expect(mail?.to).toEqual(['ana@example.com']);
      mailer.close();
    } finally {
      await smtp.close();
    }
  });

  it('closes without having sent anything (the transport is made at the first message)', () => {
    expect(() =>
      createMailer({ from: 'x@example.com', outboxDir: '/nonexistent', logger }).close(),
    ).not.toThrow();
  });
});
