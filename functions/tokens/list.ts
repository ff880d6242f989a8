/** GET /api/tokens/ (staff): the caller's API tokens (a superuser's: everyone's), paginated, never a key. */
import { apiHandler } from '../../shared/middleware';
import { listPageResponse, pageRequest } from '../../shared/middleware/pages';
import { tokenView } from '../../shared/domain/tokens';
import { listTokens } from '../../shared/store/tokens';

export const handler = apiHandler('tokens/list', async (event) => {
  const caller = event.user!;
  const request = pageRequest(event);
  return listPageResponse(
    event,
    request,
    await listTokens(caller.is_superuser ? undefined : caller.username),
    tokenView,
  );
});
