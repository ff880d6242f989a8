/** The webhook subscription commands: create-webhook, list-webhooks, ping-webhook, disable-webhook. */
import type { Subscription } from '../shared/domain/subscriptions';
import { command, Failure, type Context } from './command';
import { jsonBody, validated } from './rules';
import { show, showList } from './terminal';

/** The stored subscription an argument names (the environment's receivers change only by redeploying). */
async function storedSubscription(ctx: Context) {
  const id = ctx.args[0]!;
  const [{ getSubscription }, { SUBSCRIPTION_ID }] = await Promise.all([
    import('../shared/store/subscriptions'),
    import('../shared/domain/subscriptions'),
  ]);
  const subscription = SUBSCRIPTION_ID.test(id) ? await getSubscription(id) : undefined;
  const why = id.startsWith('env_') ? " (the environment's receivers change only by redeploying)" : '';
  if (!subscription) throw new Failure(`No subscription with id ${id}${why}.`);
  return subscription;
}

export const createWebhook = command({
  name: 'create-webhook',
  summary: 'subscribe a receiver URL to change events (the signing secret is printed once)',
  description:
    'Creates a webhook subscription, as POST /api/webhooks/ does, and prints its signing secret (whsec_...): the ' +
    'only time it is shown. --events is a comma-separated list of event types (ticket.created, ticket.updated, ' +
    '...).',
  options: {
    url: {
      type: 'string',
      value: 'URL',
      help: 'the receiver: https (http to this machine locally), not a private address (required)',
    },
    events: {
      type: 'string',
      value: 'TYPES',
      help: 'comma-separated event types, e.g. ticket.created,followup.created (required)',
    },
    description: { type: 'string', value: 'TEXT', help: 'what it is for, at most 200 characters' },
  },
  required: ['url', 'events'],
  examples: [
    'npm run helpdesk -- create-webhook --url https://hooks.example.com/helpdesk ' +
      '--events ticket.created,ticket.updated',
  ],
  prepare(ctx) {
    const events = String(ctx.options.events)
      .split(',')
      .map((e) => e.trim())
      .filter(Boolean);
    return async () => {
      const [subscriptions, store, { config }] = await Promise.all([
        import('../shared/domain/subscriptions'),
        import('../shared/store/subscriptions'),
        import('../shared/config'),
      ]);
      const fields = validated(
        'Invalid subscription',
        { url: '--url', events: '--events', description: '--description' },
        () =>
          subscriptions.parseSubscriptionBody(
            jsonBody({
              url: ctx.options.url,
              events,
              ...(ctx.options.description === undefined ? {} : { description: ctx.options.description }),
            }),
            'create',
            config.webhooks.loopbackAllowed,
          ),
      ) as Pick<Subscription, 'url' | 'events'>;
      const subscription = subscriptions.newSubscription(fields, new Date());
      await store.createSubscription(subscription, subscriptions.MAX_SUBSCRIPTIONS).catch((error: unknown) => {
        throw error instanceof store.TooManySubscriptions
          ? new Failure(`There are ${subscriptions.MAX_SUBSCRIPTIONS} subscriptions already; delete one first.`)
          : error;
      });
      show(
        ctx,
        subscriptions.subscriptionWithSecretView(subscription),
        `Created subscription ${subscription.id}. Its signing secret (shown only now):\n${subscription.secret}`,
      );
    };
  },
});

export const listWebhooks = command({
  name: 'list-webhooks',
  summary: 'list webhook subscriptions (never their secrets)',
  description: 'Lists the webhook subscriptions: id, enabled, events, URL; those the deliverer disabled say why.',
  examples: ['npm run helpdesk -- list-webhooks'],
  async run(ctx) {
    const [{ listSubscriptions }, { subscriptionView }] = await Promise.all([
      import('../shared/store/subscriptions'),
      import('../shared/domain/subscriptions'),
    ]);
    const views = (await listSubscriptions()).map(subscriptionView);
    showList(ctx, views, 'No subscriptions.', ['ID', 'ENABLED', 'EVENTS', 'URL'], (s) => [
      s.id,
      s.enabled ? 'yes' : `no${s.disabled_reason ? ' (failing)' : ''}`,
      s.events.join(','),
      s.url,
    ]);
  },
});

export const pingWebhook = command({
  name: 'ping-webhook',
  args: ['id'],
  summary: "send a test event to a subscription's receiver and show its answer",
  description:
    'Posts a signed webhook.ping event to the receiver from this machine, as POST /api/webhooks/{id}/ping does, ' +
    'and prints what it answered. Exit status 1 if it answered anything but 2xx.',
  examples: ['npm run helpdesk -- ping-webhook sub_0mi2vsq0w3a9f1c6e7b2d405'],
  prepare(ctx) {
    return async () => {
      const [{ pingSubscription }, { config }] = await Promise.all([
        import('../shared/webhooks/subscriptions'),
        import('../shared/config'),
      ]);
      const subscription = await storedSubscription(ctx);
      const result = await pingSubscription(subscription, {
        timeoutMs: config.webhooks.settings.timeoutMs,
        allowLoopback: config.webhooks.loopbackAllowed,
      });
      show(
        ctx,
        result,
        result.status !== null ? `The receiver answered ${result.status}.` : `No answer: ${result.error}.`,
      );
      if (!result.delivered) throw new Failure('The receiver did not accept the ping.');
    };
  },
});

export const disableWebhook = command({
  name: 'disable-webhook',
  args: ['id'],
  summary: 'disable a webhook subscription',
  description:
    'Stops deliveries to a subscription (its pending ones end at their next attempt); PATCH {"enabled": true} ' +
    'enables it again.',
  examples: ['npm run helpdesk -- disable-webhook sub_0mi2vsq0w3a9f1c6e7b2d405'],
  prepare(ctx) {
    return async () => {
      const [{ changedSubscription, subscriptionView }, { saveSubscription }] = await Promise.all([
        import('../shared/domain/subscriptions'),
        import('../shared/store/subscriptions'),
      ]);
      const current = await storedSubscription(ctx);
      const next = changedSubscription(current, { enabled: false }, new Date());
      if (!(await saveSubscription(current, next))) throw new Failure(`No subscription with id ${current.id}.`);
      show(ctx, subscriptionView(next), `Disabled subscription ${current.id}.`);
    };
  },
});
