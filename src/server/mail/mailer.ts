import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { Transporter } from 'nodemailer';
import { onFirstUse } from '../on-first-use';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** The Message-ID header, without angle brackets; nodemailer makes one when absent. */
  messageId?: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
  close(): void;
}

export interface MailerOptions {
  smtpUrl?: string;
  from: string;
  /** Where messages go when no SMTP server is configured. */
  outboxDir: string;
  logger: FastifyBaseLogger;
}

/**
 * SMTP when SMTP_URL is set; otherwise each message is written as an .eml file under
 * DATA_DIR/outbox and its recipient logged, so a fresh install works with no mail server.
 */
export function createMailer({ smtpUrl, from, outboxDir, logger }: MailerOptions): Mailer {
  if (smtpUrl) {
    const transport = transportOnFirstUse((nodemailer) => nodemailer.createTransport(smtpUrl));
    return {
      async send(message) {
        await (await transport.get()).sendMail({ from, ...message });
        logger.info({ to: message.to, subject: message.subject }, 'mail sent');
      },
      close: transport.close,
    };
  }
  const transport = transportOnFirstUse((nodemailer) =>
    nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' }),
  );
  return {
    async send(message) {
      const info = await (await transport.get()).sendMail({ from, ...message });
      await fs.mkdir(outboxDir, { recursive: true });
      const file = path.join(outboxDir, `${Date.now()}-${crypto.randomBytes(4).toString('hex')}.eml`);
      await fs.writeFile(file, info.message as Buffer, { mode: 0o600 });
      logger.info(
        { to: message.to, subject: message.subject, file },
        'mail written to outbox (SMTP_URL unset)',
      );
    },
    close: transport.close,
  };
}

/** nodemailer and its transport, made at the first message (decision 027). */
function transportOnFirstUse<T extends Transporter>(create: (nodemailer: typeof import('nodemailer')) => T) {
  const transport = onFirstUse(async () => create(await import('nodemailer')));
  let created: T | undefined;
  return {
    get: async () => {
      created = await transport();
      return created;
    },
    close: () => created?.close(),
  };
}
