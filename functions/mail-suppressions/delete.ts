/** DELETE /api/mail/suppressions/{address}/ (superusers): mail goes to the address again. */
import { apiHandler, textParam } from '../../shared/middleware';
import { noContent } from '../../shared/middleware/http';
import { NotFound } from '../../shared/domain/errors';
import { unsuppress } from '../../shared/store/suppressions';

export const handler = apiHandler('mail-suppressions/delete', async (event) => {
  if (!(await unsuppress(textParam(event, 'address')))) throw new NotFound();
  return noContent();
});
