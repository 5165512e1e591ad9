import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  to: string[];
  subject: string;
  text: string;
  html: string;
  raw: string;
}

/** A real SMTP server on a free loopback port; what it receives is decoded for assertions. */
export async function startSmtpServer(): Promise<{
  url: string;
  messages: ReceivedMail[];
  /** The next `count` messages are refused with a temporary error (451), as a server in trouble does. */
  refuseNext(count: number): void;
  /** Messages refused so far. */
  refused(): number;
  /** The next `count` messages are never answered (a server that hangs mid-delivery). */
  stallNext(count: number): void;
  /** Messages left unanswered so far. */
  stalled(): number;
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}> {
  const messages: ReceivedMail[] = [];
  let toRefuse = 0;
  let refusedCount = 0;
  let toStall = 0;
  let stalledCount = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      if (toStall > 0) {
        toStall -= 1;
        stalledCount += 1;
        stream.resume();
        return;
      }
      if (toRefuse > 0) {
        toRefuse -= 1;
        refusedCount += 1;
        stream.resume();
        stream.on('end', () => callback(Object.assign(new Error('Try again later'), { responseCode: 451 })));
        return;
      }
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        messages.push({ ...decodeMail(raw), to: session.envelope.rcptTo.map((r) => r.address), raw });
        callback();
      });
    },
  });
  // A client killed mid-session (kill -9, in the reminder tests) resets its connection; smtp-server
  // reports that as an 'error' on the server, which would otherwise be thrown. A real server logs
  // it and serves the next connection: so does this one.
  server.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'ECONNRESET' && error.code !== 'EPIPE') throw error;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    refuseNext(count) {
      toRefuse = count;
    },
    refused: () => refusedCount,
    stallNext(count) {
      toStall = count;
    },
    stalled: () => stalledCount,
    async waitFor(count, timeoutMs = 5000) {
      const start = Date.now();
      while (messages.length < count) {
        if (Date.now() - start > timeoutMs)
          throw new Error(`expected ${count} mails, got ${messages.length}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return messages;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Just enough MIME for nodemailer's output: multipart/alternative with QP or base64 parts. */
export function decodeMail(raw: string): Omit<ReceivedMail, 'to' | 'raw'> {
  const [head = '', ...rest] = raw.split(/\r?\n\r?\n/);
  const body = rest.join('\n\n');
  const header = (name: string, block: string) =>
    block
      .replace(/\r?\n[ \t]+/g, ' ')
      .match(new RegExp(`^${name}:\\s*(.*)$`, 'im'))?.[1]
      ?.trim() ?? '';
  const subject = decodeWords(header('Subject', head));
  const boundary = header('Content-Type', head).match(/boundary="?([^";]+)"?/)?.[1];
  const parts = boundary ? body.split(`--${boundary}`).slice(1, -1) : [`${head}\n\n${body}`];
  let text = '';
  let html = '';
  for (const part of parts) {
    const [partHead = '', ...partBody] = part.replace(/^\r?\n/, '').split(/\r?\n\r?\n/);
    const content = decodeBody(partBody.join('\n\n'), header('Content-Transfer-Encoding', partHead));
    if (/text\/html/i.test(header('Content-Type', partHead))) html = content;
    else text = content;
  }
  return { subject, text, html };
}

function decodeBody(body: string, encoding: string): string {
  if (/base64/i.test(encoding)) return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (/quoted-printable/i.test(encoding)) {
    const bytes = body
      .replace(/=\r?\n/g, '')
      .replace(/=([0-9A-F]{2})/gi, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
    return Buffer.from(bytes, 'latin1').toString('utf8');
  }
  return body;
}

function decodeWords(value: string): string {
  // Whitespace between two encoded words is folding, not text (RFC 2047 §6.2).
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?utf-8\?([BQ])\?([^?]*)\?=/gi, (_m, kind: string, text: string) =>
      kind.toUpperCase() === 'B'
        ? Buffer.from(text, 'base64').toString('utf8')
        : decodeBody(text.replace(/_/g, ' '), 'quoted-printable'),
    );
}
