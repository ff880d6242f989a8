/**
 * `npm run create-admin`: makes sure a staff superuser exists in a deployed environment's table
 * (or resets its password). The password is read from standard input, never from the command line.
 *
 *   TABLE_NAME=<table from the stack outputs> HELPDESK_ADMIN_USERNAME=alice npm run create-admin
 */
import { createInterface } from 'node:readline/promises';

async function readPassword(): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: process.stdin.isTTY });
  const password = await rl.question('Password: ');
  rl.close();
  return password.trim();
}

if (!process.env.TABLE_NAME) {
  console.error('Set TABLE_NAME to the table name from the stack outputs (and AWS credentials as usual).');
  process.exit(2);
}
const password = await readPassword();
if (password.length < 8) {
  console.error('The password needs at least 8 characters.');
  process.exit(2);
}
process.env.HELPDESK_ADMIN_PASSWORD = password;
const { ensureAdmin } = await import('./local/bootstrap');
const admin = await ensureAdmin();
console.error(`Staff superuser "${admin.username}" is ready.`);
