/**
 * A search meeting a paused Aurora cluster: a runtime of its own with HELPDESK_SEARCH=aurora, its
 * RDS Data API a loopback server that answers every call as the Data API does while the cluster
 * resumes (DatabaseResumingException, HTTP 400: the fault injected). The list answers 503 with
 * Retry-After, never 500, through the real handler, driver and Data API client.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { startAwsStandIn } from '../unit/aws-stand-in';
import { useOwnRuntime } from './own-runtime';

const dataApi = await startAwsStandIn();
dataApi.always = {
  status: 400,
  headers: {
    'x-amzn-errortype': 'DatabaseResumingException:http://internal.amazon.com/coral/com.amazon.rdsdataservice/',
  },
  body: { message: 'The Aurora DB instance db-ABC is resuming after being auto-paused. Please wait a few seconds.' },
};
afterAll(() => dataApi.close());

const own = useOwnRuntime({
  HELPDESK_SEARCH: 'aurora',
  HELPDESK_SEARCH_CLUSTER_ARN: 'arn:aws:rds:us-east-1:123456789012:cluster:helpdesk-search',
  HELPDESK_SEARCH_SECRET_ARN: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:helpdesk-search-abc',
  AWS_ENDPOINT_URL_RDS_DATA: dataApi.endpoint,
});

describe('a search while the engine resumes', () => {
  it('answers 503 with Retry-After, with or without filters, having asked the Data API', async () => {
    for (const path of ['/api/tickets/?search=laptop', '/api/tickets/?search=laptop&status=1&ordering=-created']) {
      const reply = await own.api.call('GET', path);
      expect(reply.status, reply.text).toBe(503);
      expect(reply.headers.get('retry-after')).toBe('15');
      expect(reply.body).toEqual({ detail: 'Search is resuming; try again shortly.' });
    }
    expect(dataApi.seen.some((s) => s.path === '/Execute')).toBe(true);
  });
});
