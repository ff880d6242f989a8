/**
 * The process's search engine, as HELPDESK_SEARCH says (config.ts): opened on first use, or none when search is off.
 */
import { config } from '../config';
import type { SearchDriver } from './driver';

let opened: Promise<SearchDriver> | undefined;

async function open(): Promise<SearchDriver> {
  if (config.search.engine === 'pglite') {
    const { startPglite } = await import('./pglite');
    const driver = startPglite(config.search.dataDir);
    await driver.ready.catch(async (error: unknown) => {
      await driver.close();
      throw error;
    });
    return driver;
  }
  const { dataApiDriver } = await import('./data-api');
  return dataApiDriver(config.search.aurora);
}

/** The engine, or undefined when search is off; a failed start is tried again at the next use. */
export function searchEngine(): Promise<SearchDriver> | undefined {
  if (config.search.engine === 'off') return undefined;
  opened ??= open().catch((error: unknown) => {
    opened = undefined;
    throw error;
  });
  return opened;
}

/** Closes the engine (the local runtime's stop: PGlite writes its files). */
export async function closeSearchEngine(): Promise<void> {
  const engine = opened;
  opened = undefined;
  if (engine) await (await engine.catch(() => undefined))?.close();
}
