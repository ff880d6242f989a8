/** The pure rules of webhook subscriptions (shared/domain/subscriptions.ts). */
import { describe, expect, it } from 'vitest';
import {
  DISABLE_AFTER_DAYS,
  changedSubscription,
  environmentSubscriptionViews,
  newSubscription,
  parseSubscriptionBody,
  receiverHealth,
  rotatedSubscription,
  signingSecrets,
  subscriptionDeliveryId,
  subscriptionPayload,
  subscriptionView,
} from '../../shared/domain/subscriptions';
import type { ChangeEvent } from '../../shared/domain/events';
import { ValidationError } from '../../shared/domain/errors';
import { DELIVERY_ID, isWebhookSecret } from '../../shared/domain/webhooks';

const NOW = new Date('2026-11-25T12:00:00Z');
const json = (data: Record<string, unknown>) => ({ kind: 'json' as const, data, files: [] });
const sub = () => newSubscription({ url: 'https://hooks.example.com/in', events: ['ticket.created'] }, NOW);

describe('subscription bodies', () => {
  it('takes a URL, events (deduplicated, in the docs order) and a description', () => {
    expect(
      parseSubscriptionBody(
        json({
          url: 'https://hooks.example.com/in',
          events: ['ticket.updated', 'ticket.created', 'ticket.updated'],
          description: 'CRM',
        }),
        'create',
        false,
      ),
    ).toEqual({
      url: 'https://hooks.example.com/in',
      events: ['ticket.created', 'ticket.updated'],
      description: 'CRM',
    });
  });

  it.each([
    [{ url: 'http://hooks.example.com/in', events: ['ticket.created'] }, 'url', /https/],
    [{ url: 'https://169.254.169.254/', events: ['ticket.created'] }, 'url', /metadata/],
    [{ url: 'https://hooks.example.com/in', events: ['nope'] }, 'events', /not a valid choice/],
    [{ url: 'https://hooks.example.com/in', events: [] }, 'events', /empty/],
  ])('refuses %j', (body, field, message) => {
    try {
      parseSubscriptionBody(json(body), 'create', false);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).fields[field]).toEqual([expect.stringMatching(message)]);
    }
  });
});

describe('secrets', () => {
  it('a new subscription has a Standard Webhooks secret its view never shows', () => {
    const s = sub();
    expect(isWebhookSecret(s.secret)).toBe(true);
    expect(JSON.stringify(subscriptionView(s))).not.toContain(s.secret);
  });

  it('a rotation signs with both secrets until the grace period ends, then the new one only', () => {
    const s = sub();
    const rotated = rotatedSubscription(s, 3600, NOW);
    expect(rotated.secret).not.toBe(s.secret);
    expect(signingSecrets(rotated, new Date(NOW.getTime() + 3599_000))).toEqual([rotated.secret, s.secret]);
    expect(signingSecrets(rotated, new Date(NOW.getTime() + 3600_000))).toEqual([rotated.secret]);
    expect(signingSecrets(rotatedSubscription(s, 0, NOW), NOW)).toHaveLength(1);
  });
});

describe('receiver health', () => {
  const day = 86_400_000;
  it(`starts a run of failures, ends it on a 2xx, and disables after ${DISABLE_AFTER_DAYS} days of it`, () => {
    expect(receiverHealth({ failing_since: null }, true, NOW)).toEqual({ change: 'none' });
    expect(receiverHealth({ failing_since: null }, false, NOW)).toEqual({
      change: 'failing',
      since: NOW.toISOString(),
    });
    const since = new Date(NOW.getTime() - DISABLE_AFTER_DAYS * day + 1).toISOString();
    expect(receiverHealth({ failing_since: since }, false, NOW)).toEqual({ change: 'none' });
    expect(receiverHealth({ failing_since: since }, true, NOW)).toEqual({ change: 'answering' });
    expect(
      receiverHealth({ failing_since: new Date(NOW.getTime() - DISABLE_AFTER_DAYS * day).toISOString() }, false, NOW),
    ).toMatchObject({ change: 'disable' });
  });

  it('enabling again, or a new URL, forgets past failures', () => {
    const failing = { ...sub(), enabled: false, failing_since: NOW.toISOString(), disabled_reason: 'x' };
    expect(changedSubscription(failing, { enabled: true }, NOW)).toMatchObject({
      failing_since: null,
      disabled_reason: null,
    });
    expect(changedSubscription(failing, { url: 'https://other.example.com/' }, NOW)).toMatchObject({
      failing_since: null,
    });
    expect(changedSubscription(failing, { description: 'd' }, NOW)).toMatchObject({ failing_since: NOW.toISOString() });
  });
});

describe('deliveries and payloads', () => {
  const event: ChangeEvent = {
    id: 'evt_0000000001abcdef0123456789',
    event: 'ticket.updated',
    created: NOW.toISOString(),
    ticket: 4,
    followup: null,
    attachment: null,
    actor: null,
    source: 'unknown',
    changes: { custom_tier: { old: null, new: 'gold' }, title: { old: 'a', new: 'b' } },
    data: {
      id: 4,
      title: 'b',
      custom_tier: 'gold',
      followup_set: [
        { id: 1, public: true },
        { id: 2, public: false },
      ],
    },
  };

  it('one delivery id per event and subscription, valid in the delivery log', () => {
    const id = subscriptionDeliveryId(event, 'sub_a');
    expect(id).toBe(subscriptionDeliveryId(event, 'sub_a'));
    expect(id).not.toBe(subscriptionDeliveryId(event, 'sub_b'));
    expect(DELIVERY_ID.test(id)).toBe(true);
  });

  it('is Standard Webhooks shaped, without staff-only fields and private followups unless included', () => {
    const shown = subscriptionPayload(event, ['tier'], false);
    expect(shown).toEqual({
      type: 'ticket.updated',
      timestamp: event.created,
      data: {
        ...event,
        changes: { title: { old: 'a', new: 'b' } },
        data: { id: 4, title: 'b', followup_set: [{ id: 1, public: true }] },
      },
    });
    expect(subscriptionPayload(event, ['tier'], true)?.data).toEqual(event);
  });
});

describe("the environment's receivers", () => {
  it('are read-only subscriptions, one per URL, without query strings', () => {
    const views = environmentSubscriptionViews({
      'ticket.created': ['https://a.example/x?token=1'],
      'followup.created': ['https://b.example/y', 'https://c.example/z'],
    });
    expect(views.map((v) => [v.id, v.url, v.events, v.read_only, v.source])).toEqual([
      ['env_new_ticket_0', 'https://a.example/x?…', ['ticket.created'], true, 'HELPDESK_NEW_TICKET_WEBHOOK_URLS'],
      ['env_followup_0', 'https://b.example/y', ['followup.created'], true, 'HELPDESK_FOLLOWUP_WEBHOOK_URLS'],
      ['env_followup_1', 'https://c.example/z', ['followup.created'], true, 'HELPDESK_FOLLOWUP_WEBHOOK_URLS'],
    ]);
  });
});
