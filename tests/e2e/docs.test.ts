/**
 * The API reference page in a real browser: headless Chromium (driven over the DevTools protocol
 * by puppeteer-core) opens /api/docs on the local runtime, answers its Basic-auth challenge as a
 * user would, and the page renders the operations of the OpenAPI document, with nothing refused by
 * its Content-Security-Policy and nothing loaded from another origin.
 */
import puppeteer, { type Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { routes } from '../../shared/api/routes';
import { documentPath } from '../../shared/api/openapi';

const API = inject('apiUrl');
const ADMIN = inject('admin');

let browser: Browser;

beforeAll(async () => {
  browser = await puppeteer.launch({
    executablePath: inject('chromium'),
    headless: true,
    // Root in a container: Chromium's sandbox needs user namespaces it may not have.
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

describe('GET /api/docs in headless Chromium', () => {
  it('lists the operations of the document after the browser answers the Basic challenge', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    const requested: string[] = [];
    page.on('console', (message) => {
      // Failed loads are reported with their URL by the response listener below.
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource'))
        problems.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${(error as Error).message}`));
    page.on('request', (request) => requested.push(request.url()));
    page.on('response', (response) => {
      if (response.status() >= 400) problems.push(`${response.status()} ${response.url()}`);
    });
    // Any CSP refusal is also reported as an event in the page.
    await page.evaluateOnNewDocument(
      "document.addEventListener('securitypolicyviolation', (e) => console.error('CSP refused ' + " +
        "e.violatedDirective + ' ' + e.blockedURI));",
    );

    // Without credentials the page answers 401 with a Basic challenge, so a browser asks the user
    // (headless Chromium cannot ask: puppeteer answers the challenge as the user would).
    const refused = await fetch(`${API}/api/docs`);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe('Basic realm="api"');

    await page.authenticate({ username: ADMIN.username, password: ADMIN.password });
    const answer = await page.goto(`${API}/api/docs`, { waitUntil: 'load' });
    expect(answer?.status()).toBe(200);
    await page.waitForSelector('.opblock-summary-path', { timeout: 30_000 });

    const shown = await page.$$eval('.opblock-summary-path', (nodes) =>
      nodes.map((n) => n.getAttribute('data-path') ?? n.textContent ?? ''),
    );
    const expected = new Set(routes.map((r) => documentPath(r.path)));
    for (const path of expected)
      expect(
        shown.map((s) => s.replace(/\u200b/g, '')),
        path,
      ).toContain(path);
    const text = await page.$eval('body', (body) => body.innerText);
    expect(text).toContain('Helpdesk API');
    expect(text).toContain('Create a ticket');
    expect(text).toContain('Tickets');

    expect(problems).toEqual([]);
    const origin = new URL(API).origin;
    expect(requested.filter((url) => !url.startsWith(origin) && !url.startsWith('data:'))).toEqual([]);
    await page.close();
  }, 90_000);
});
