/** GET /api/tokens/ (staff): the caller's API tokens (a superuser's: everyone's), paginated, never a key. */
import { apiHandler } from '../../shared/middleware';
import { pageRequest, pageResponse } from '../../shared/middleware/pages';
import { pageWindow } from '../../shared/domain/pagination';
import { tokenView } from '../../shared/domain/tokens';
import { listTokens } from '../../shared/store/tokens';

export const handler = apiHandler('tokens/list', async (event) => {
  const caller = event.user!;
  const request = pageRequest(event);
  const tokens = await listTokens(caller.is_superuser ? undefined : caller.username);
  const window = pageWindow(request, tokens.length);
  return pageResponse(event, window, tokens.length, tokens.slice(window.offset, window.offset + window.limit).map(tokenView));
});
