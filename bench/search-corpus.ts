/**
 * The search benchmark's synthetic tickets (bench/search.ts): text drawn from a Zipf-like vocabulary,
 * as real text is, so that a common word matches many tickets and a rare one few, plus codes and part
 * numbers. Deterministic: the same seed gives the same corpus.
 *
 * The vocabulary is 5,000 words ranked by frequency, a word of rank r drawn with probability
 * proportional to 1/r: English stop words first (the engine drops them), then helpdesk words spread
 * over ranks 31 to about 2,400 (so `laptop` is in about one ticket in five, `overheats` in about one
 * in a hundred), the other ranks filled with made-up words. A third of the tickets name an invoice
 * (`INV-2026-<id>`) and one in ten a product code (`X1-Carbon`, `SKU-48213`, one of 40).
 */
import { keys } from '../shared/store/keys';

const STOP = (
  'the i to a and my is it of in on for not with this when we after can have be was but our me from at you ' +
  'please that'
).split(' ');
const DOMAIN = (
  'laptop printer screen battery keyboard mouse network wifi router server password account invoice refund ' +
  'shipping delivery order payment billing license update install crash error slow overheats broken noisy cable ' +
  'charger monitor email calendar backup restore database report export import login access permission café ' +
  'résumé naïve phone headset vpn firewall certificate browser cache driver firmware disk storage memory fan ' +
  'docking station webcam microphone speaker bluetooth sync upload download attachment signature mailbox ' +
  'quota spam phishing malware antivirus reboot freeze timeout latency outage ticket portal subscription renewal ' +
  'discount coupon warranty repair replacement courier tracking customs address contract quote'
).split(' ');
const VOCABULARY_SIZE = 5000;
const SYLLABLES = 'ka lo mi ne ru sa te vi do pe ga zu ri fo ha ne ti bo lu ma'.split(' ');
/** Made-up words: syllables spelling the rank, so each is distinct and none is an English word. */
const madeUp = (rank: number) => {
  let word = '';
  for (let n = rank; n > 0; n = Math.floor(n / SYLLABLES.length)) word += SYLLABLES[n % SYLLABLES.length];
  return `${word}x`;
};
/** Where each domain word sits in the ranking: from rank 31, every 20th. */
const DOMAIN_RANK = (i: number) => STOP.length + 1 + i * 20;

const vocabulary: string[] = [...STOP];
{
  const domainAt = new Map(DOMAIN.map((w, i) => [DOMAIN_RANK(i), w]));
  for (let rank = STOP.length + 1; rank <= VOCABULARY_SIZE; rank++) vocabulary.push(domainAt.get(rank) ?? madeUp(rank));
}
/** Cumulative weights of 1/rank, for drawing by binary search. */
const cumulative: number[] = [];
vocabulary.reduce((sum, _, i) => (cumulative.push(sum + 1 / (i + 1)), sum + 1 / (i + 1)), 0);

const PRODUCTS = Array.from({ length: 40 }, (_, i) =>
  i % 2
    ? `SKU-${48_000 + i * 37}`
    : `${'XTPQ'[i % 4]}${1 + (i % 9)}-${['Carbon', 'Nano', 'Flex', 'Pro', 'Air'][i % 5]}`,
);

export function corpus(seed = 1) {
  let state = seed;
  const random = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const word = () => {
    const x = random() * cumulative.at(-1)!;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return vocabulary[lo]!;
  };
  const sentence = (n: number) => Array.from({ length: n }, word).join(' ');
  const at = (i: number) => new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString().replace('Z', '000Z');
  /** Ticket `id`'s table item, as the stream hands it to the indexer. */
  const ticket = (id: number) => {
    const codes = [
      ...(random() < 1 / 3 ? [`INV-2026-${String(id).padStart(4, '0')}`] : []),
      ...(random() < 0.1 ? [PRODUCTS[Math.floor(random() * PRODUCTS.length)]!] : []),
    ];
    const k = keys.ticket(id);
    return {
      ...k,
      type: 'ticket',
      id,
      queue: 1 + (id % 3),
      title: sentence(6),
      description: [sentence(40), ...codes].join(' '),
      resolution: null,
      submitter_email: `user${id % 50}@example.com`,
      assigned_to: id % 10 === 0 ? 1 : null,
      status: 1 + (id % 5),
      on_hold: false,
      priority: 1 + (id % 5),
      due_date: null,
      merged_to: null,
      secret_key: 'x',
      created: at(id),
      modified: at(id),
      custom: {},
      opening: {
        id: id * 10,
        user: 1,
        title: 'Ticket Opened',
        comment: sentence(20),
        public: true,
        new_status: null,
        time_spent: null,
        date: at(id),
        message_id: null,
      },
    };
  };
  return { ticket, at, vocabulary };
}
