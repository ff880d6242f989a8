/** DELETE /api/mail/suppressions/{address}/ (superusers): mail goes to the address again. */
import { apiHandler } from '../../shared/middleware';
import { noContent } from '../../shared/middleware/http';
import { NotFound } from '../../shared/domain/errors';
import { unsuppress } from '../../shared/store/suppressions';

/** The address as sent: `@` may come percent-encoded; a malformed escape names no address. */
function addressParam(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new NotFound();
  }
}

export const handler = apiHandler('mail-suppressions/delete', async (event) => {
  if (!(await unsuppress(addressParam(event.pathParameters?.address ?? '')))) throw new NotFound();
  return noContent();
});
