// Turns an attachment's bytes into text, off the server's main thread (decision 022).
// Plain JavaScript on purpose: Node runs it as it is under vitest (TypeScript sources) and
// scripts/build-server.mjs bundles it next to main.js for the built server.
//
// Message in:  { id, kind: 'text' | 'pdf', bytes: Uint8Array, cut: boolean, maxChars }
//   (`cut`: the bytes are only the start of the file)
// Message out: { id, text, truncated } or { id, unreadable: true }
import { parentPort } from 'node:worker_threads';

/** unpdf (pdf.js) is loaded on the first PDF only: a read of Markdown files never pays for it. */
let unpdf;

/** Does not split a surrogate pair. */
function firstChars(text, n) {
  if (text.length <= n) return text;
  const code = text.charCodeAt(n - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? n - 1 : n);
}

/** UTF-8 unless a byte-order mark says UTF-16; the mark itself is dropped. */
function decodeText(bytes, cut, maxChars) {
  const encoding =
    bytes[0] === 0xff && bytes[1] === 0xfe
      ? 'utf-16le'
      : bytes[0] === 0xfe && bytes[1] === 0xff
        ? 'utf-16be'
        : 'utf-8';
  // `stream` holds back a character whose bytes the cut split, instead of a replacement character.
  const text = new TextDecoder(encoding).decode(bytes, { stream: cut });
  return { text: firstChars(text, maxChars), truncated: cut || text.length > maxChars };
}

/**
 * The text of a PDF as unpdf's extractText(…, { mergePages: true }) gives it, but page by page and
 * only until there is more than `maxChars` of it: no run can use more, and a 600-page document
 * would otherwise cost seconds of a core for text that is thrown away.
 */
async function pdfText(bytes, maxChars) {
  unpdf ??= await import('unpdf');
  // Verbosity 0 (errors only): pdf.js would otherwise print warnings about damaged files.
  const pdf = await unpdf.getDocumentProxy(bytes, { verbosity: 0 });
  try {
    const pages = [];
    let length = 0;
    for (let number = 1; number <= pdf.numPages && length <= maxChars; number += 1) {
      const page = await pdf.getPage(number);
      const content = await page.getTextContent();
      const text = content.items
        .filter((item) => item.str != null)
        .map((item) => item.str + (item.hasEOL ? '\n' : ''))
        .join('');
      page.cleanup();
      pages.push(text);
      length += text.length + 1;
    }
    // unpdf's merge: pages joined by a line break, runs of spaces and blank lines collapsed.
    const text = pages
      .join('\n')
      .replace(/[^\S\n]+/g, ' ')
      .replace(/ ?\n ?/g, '\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim();
    return {
      text: firstChars(text, maxChars),
      truncated: pages.length < pdf.numPages || text.length > maxChars,
    };
  } finally {
    await pdf.destroy();
  }
}

parentPort.on('message', async ({ id, kind, bytes, cut, maxChars }) => {
  try {
    const result = kind === 'pdf' ? await pdfText(bytes, maxChars) : decodeText(bytes, cut, maxChars);
    parentPort.postMessage({ id, ...result });
  } catch {
    // A damaged or encrypted PDF (or one pdf.js cannot parse): the caller notes it and goes on.
    parentPort.postMessage({ id, unreadable: true });
  }
});
