/** The API token commands: create-token, list-tokens, revoke-token. */
import { command, Failure, UsageError } from './command';
import { show, showList } from './terminal';
import { existingUser, usernameArgument } from './users';

export const createToken = command({
  name: 'create-token',
  args: ['username'],
  summary: 'create an API token for a user (the key is printed once)',
  description:
    'Creates an API token (Authorization: Token <key>, when HELPDESK_AUTHENTICATION_CLASSES lists token) and ' +
    'prints its key: the only time it is shown; only its hash is stored.',
  examples: ['npm run helpdesk -- create-token alice', 'npm run -s helpdesk -- create-token alice --json'],
  prepare(ctx) {
    const username = usernameArgument(ctx);
    return async () => {
      const [{ createToken, TooManyTokens }, tokens, { storedDateTime }] = await Promise.all([
        import('../shared/store/tokens'),
        import('../shared/domain/tokens'),
        import('../shared/domain/datetime'),
      ]);
      await existingUser(username);
      const key = tokens.newTokenKey();
      const token = await createToken({
        user: username,
        prefix: key.slice(0, tokens.TOKEN_PREFIX_LENGTH),
        created: storedDateTime(new Date()),
        key_hash: tokens.hashTokenKey(key),
      }).catch((error: unknown) => {
        throw error instanceof TooManyTokens ? new Failure(tokens.tooManyTokens(username)) : error;
      });
      show(
        ctx,
        tokens.createdTokenView(token, key),
        `Created token ${token.id} for "${username}". Its key (shown only now):\n${key}`,
      );
    };
  },
});

export const listTokens = command({
  name: 'list-tokens',
  summary: 'list API tokens (never their keys)',
  description: 'Lists API tokens: id, user, the first characters of the key, created.',
  options: { user: { type: 'string', value: 'USERNAME', help: "only this user's tokens" } },
  examples: ['npm run helpdesk -- list-tokens --user alice'],
  async run(ctx) {
    const [{ listTokens }, { tokenView }] = await Promise.all([
      import('../shared/store/tokens'),
      import('../shared/domain/tokens'),
    ]);
    const tokens = (await listTokens(ctx.options.user as string | undefined)).map(tokenView);
    showList(ctx, tokens, 'No tokens.', ['ID', 'USER', 'PREFIX', 'CREATED'], (t) => [
      t.id,
      t.user,
      `${t.prefix}...`,
      t.created,
    ]);
  },
});

export const revokeToken = command({
  name: 'revoke-token',
  args: ['id'],
  summary: 'revoke an API token by id',
  description: 'Deletes an API token: its key stops working at once (tokens are not cached).',
  examples: ['npm run helpdesk -- revoke-token 3'],
  prepare(ctx) {
    const raw = ctx.args[0]!;
    if (!/^\d{1,15}$/.test(raw)) throw new UsageError(`The token id must be a number, not "${raw}".`);
    const id = Number(raw);
    return async () => {
      const { getToken, deleteToken } = await import('../shared/store/tokens');
      const token = await getToken(id);
      if (!token) throw new Failure(`No token with id ${id}.`);
      await deleteToken(token);
      show(ctx, { id, user: token.user, revoked: true }, `Revoked token ${id} of "${token.user}".`);
    };
  },
});
