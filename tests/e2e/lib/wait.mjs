// Bounded polling: every wait in the e2e has a deadline and a failure message that explains
// what was awaited and shows whatever context helps (e.g. the tail of the gateway log).
import { setTimeout as sleep } from "node:timers/promises";

export class WaitTimeoutError extends Error {}

/**
 * Poll `probe` until it returns a truthy value (which is returned) or `timeoutMs` passes.
 * `details` (optional, may be async) is appended to the timeout message.
 */
export async function waitFor(probe, { what, timeoutMs, intervalMs = 200, details } = {}) {
  const deadline = Date.now() + timeoutMs;
  let lastError;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() >= deadline) break;
    await sleep(Math.min(intervalMs, Math.max(0, deadline - Date.now())));
  }
  let msg = `timed out after ${(timeoutMs / 1000).toFixed(0)} s waiting for ${what}`;
  if (lastError) msg += `\nlast probe error: ${lastError?.stack ?? lastError}`;
  if (details) {
    try { msg += `\n${await details()}`; } catch (err) { msg += `\n(details unavailable: ${err})`; }
  }
  throw new WaitTimeoutError(msg);
}

/** Race a promise against a deadline, with the same kind of message as waitFor. */
export async function withTimeout(promise, { what, timeoutMs, details }) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(async () => {
      let msg = `timed out after ${(timeoutMs / 1000).toFixed(0)} s waiting for ${what}`;
      if (details) {
        try { msg += `\n${await details()}`; } catch (err) { msg += `\n(details unavailable: ${err})`; }
      }
      reject(new WaitTimeoutError(msg));
    }, timeoutMs);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
