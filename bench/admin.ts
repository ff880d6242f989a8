/**
 * The admin every benchmark's runtime is bootstrapped with (HELPDESK_ADMIN_USERNAME and _PASSWORD, set before the
 * runtime starts), and the Authorization header of the requests the benchmarks send as that admin.
 */
export const BENCH_ADMIN = { username: 'admin', password: 'bench-admin-password' };
export const BENCH_ADMIN_ENV = {
  HELPDESK_ADMIN_USERNAME: BENCH_ADMIN.username,
  HELPDESK_ADMIN_PASSWORD: BENCH_ADMIN.password,
};
/** An HTTP Basic Authorization header. */
export const basicAuthorization = (username: string, password: string) =>
  `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
export const BENCH_ADMIN_AUTH = basicAuthorization(BENCH_ADMIN.username, BENCH_ADMIN.password);
