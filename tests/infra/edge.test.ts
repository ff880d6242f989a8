/**
 * Template tests of the optional edge (infra/edge.ts): CloudFront with AWS WAF in us-east-1 in front
 * of the API, which then keeps only its custom domain, refusing requests without CloudFront's secret.
 */
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { buildHelpdesk } from '../../infra/app';
import { addNagChecks } from '../../infra/nag';
import { EdgeStack } from '../../infra/edge';
import { DEFAULT_EDGE_RATE_LIMIT, environmentSettings, withContextOverrides } from '../../infra/environments';
import { apiTemplate, functionIn, roleStatements, templateApp, type Resource } from './template';
import type { Json } from '../json';

const ORIGIN = {
  domainName: 'origin.helpdesk.example.com',
  certificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/origin',
};
const EDGE = {
  edgeDomainName: 'api.helpdesk.example.com',
  edgeCertificateArn: 'arn:aws:acm:us-east-1:123456789012:certificate/edge',
};

function synth(context: Record<string, unknown>) {
  const app = templateApp('prod', context);
  const helpdesk = buildHelpdesk(app);
  return { app, helpdesk, api: apiTemplate(helpdesk.api), edge: helpdesk.edge && Template.fromStack(helpdesk.edge) };
}

/**
 * The edge stack alone, its settings read as buildHelpdesk reads them: for what only the edge stack
 * decides, without synthesising the API stack (most of a synth's time).
 */
function edgeAlone(context: Record<string, unknown>): Template {
  const app = templateApp('prod', context);
  const settings = withContextOverrides(environmentSettings('prod'), (key) => app.node.tryGetContext(key));
  return Template.fromStack(
    new EdgeStack(app, 'Edge', { settings, edge: settings.edge!, originDomain: settings.customDomain!.domainName }),
  );
}

describe('without an edge (the default)', () => {
  it('makes no edge stack, and keeps the execute-api endpoint', () => {
    const { helpdesk, api } = synth({});
    expect(helpdesk.edge).toBeUndefined();
    api.hasResourceProperties('AWS::ApiGatewayV2::Api', { DisableExecuteApiEndpoint: false });
    const [, fn] = functionIn(api, 'TicketsList');
    expect(fn.Properties.Environment.Variables.HELPDESK_ORIGIN_SECRET_NAME).toBeUndefined();
  });
});

describe('with an edge (-c edgeDomainName=... -c edgeCertificateArn=...)', () => {
  const { app, helpdesk, api, edge } = synth({ ...ORIGIN, ...EDGE, edgeRateLimit: '2000' });

  it('puts CloudFront and the web ACL in their own stack in us-east-1, deployed before the API', () => {
    expect(helpdesk.edge!.stackName).toBe('Helpdesk-prod-Edge');
    expect(helpdesk.edge!.region).toBe('us-east-1');
    expect(helpdesk.api.dependencies).toContain(helpdesk.edge);
  });

  it('blocks an address past its rate, and applies AWS managed rules, the body size rule only counting', () => {
    edge!.resourceCountIs('AWS::WAFv2::WebACL', 1);
    const acl = Object.values(edge!.findResources('AWS::WAFv2::WebACL') as Record<string, Resource>)[0]!.Properties;
    expect(acl.Scope).toBe('CLOUDFRONT');
    expect(acl.DefaultAction).toEqual({ Allow: {} });
    const rules = acl.Rules as Record<string, Json>[];
    expect(rules[0]).toMatchObject({
      Name: 'RatePerAddress',
      Priority: 0,
      Action: { Block: {} },
      Statement: { RateBasedStatement: { AggregateKeyType: 'IP', Limit: 2000, EvaluationWindowSec: 300 } },
    });
    expect(rules.slice(1).map((r) => r.Statement.ManagedRuleGroupStatement.Name)).toEqual([
      'AWSManagedRulesAmazonIpReputationList',
      'AWSManagedRulesCommonRuleSet',
      'AWSManagedRulesKnownBadInputsRuleSet',
    ]);
    for (const rule of rules.slice(1)) expect(rule.OverrideAction).toEqual({ None: {} });
    expect(rules[2]!.Statement.ManagedRuleGroupStatement.RuleActionOverrides).toEqual([
      { Name: 'SizeRestrictions_BODY', ActionToUse: { Count: {} } },
    ]);
    for (const rule of rules)
      expect(rule.VisibilityConfig).toMatchObject({ CloudWatchMetricsEnabled: true, SampledRequestsEnabled: true });
  });

  it(
    'forwards everything to the API’s own domain over HTTPS, caches nothing, with the web ACL and the secret ' +
      'header',
    () => {
      const config = Object.values(edge!.findResources('AWS::CloudFront::Distribution') as Record<string, Resource>)[0]!
        .Properties.DistributionConfig;
      expect(config.Aliases).toEqual([EDGE.edgeDomainName]);
      expect(config.ViewerCertificate).toMatchObject({
        AcmCertificateArn: EDGE.edgeCertificateArn,
        MinimumProtocolVersion: 'TLSv1.2_2021',
        SslSupportMethod: 'sni-only',
      });
      expect(config.WebACLId).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^Firewall/), 'Arn'] });
      const behavior = config.DefaultCacheBehavior;
      expect(behavior.ViewerProtocolPolicy).toBe('https-only');
      expect(behavior.AllowedMethods).toEqual(['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE']);
      expect(behavior.CachePolicyId).toBe('4135ea2d-6df8-44a3-9df3-4b5a84be39ad'); // CachingDisabled
      // AllViewerExceptHostHeader: every viewer header but Host, and CloudFront's own, CloudFront-Viewer-Address among
      // them (the login throttle's viewer).
      expect(behavior.OriginRequestPolicyId).toBe('b689b0a8-53d0-40ab-baf2-68738e2966ac');
      const [origin] = config.Origins;
      expect(origin.DomainName).toBe(ORIGIN.domainName);
      expect(origin.CustomOriginConfig).toMatchObject({
        OriginProtocolPolicy: 'https-only',
        OriginSSLProtocols: ['TLSv1.2'],
      });
      // The value is a dynamic reference to the generated secret, resolved by CloudFormation: never in the template's
      // text.
      expect(origin.OriginCustomHeaders).toEqual([
        { HeaderName: 'X-Origin-Verify', HeaderValue: expect.objectContaining({ 'Fn::Join': expect.anything() }) },
      ]);
      expect(JSON.stringify(origin.OriginCustomHeaders)).toContain('{{resolve:secretsmanager:');
      edge!.hasResourceProperties('AWS::SecretsManager::Secret', {
        Name: 'helpdesk-prod-origin-verify',
        GenerateSecretString: { PasswordLength: 48, ExcludePunctuation: true },
      });
    },
  );

  it('turns off the execute-api endpoint, and makes every function require the secret and link to the edge', () => {
    api.hasResourceProperties('AWS::ApiGatewayV2::Api', { DisableExecuteApiEndpoint: true });
    const functions = Object.entries(api.findResources('AWS::Lambda::Function') as Record<string, Resource>).filter(
      ([, f]) => f.Properties.Environment?.Variables?.HELPDESK_ACTIVATE_API_ENDPOINT,
    );
    expect(functions.length).toBeGreaterThan(30);
    for (const [id, fn] of functions) {
      expect(fn.Properties.Environment.Variables).toMatchObject({
        HELPDESK_ORIGIN_SECRET_NAME: 'helpdesk-prod-origin-verify',
        HELPDESK_PUBLIC_URL: `https://${EDGE.edgeDomainName}`,
      });
      // The origin secret's read (a list function with search on also reads the search cluster's secret).
      const reads = roleStatements(api, id).filter(
        (s) =>
          [s.Action].flat().includes('secretsmanager:GetSecretValue') &&
          JSON.stringify(s.Resource).includes('origin-verify'),
      );
      expect(reads, id).toHaveLength(1);
      expect(JSON.stringify(reads[0]!.Resource)).toContain(':secretsmanager:us-east-1:');
      expect(JSON.stringify(reads[0]!.Resource)).toContain(':secret:helpdesk-prod-origin-verify-??????');
    }
  });

  it('leaves no unacknowledged cdk-nag finding in the edge stack', () => {
    const checks = addNagChecks(app);
    app.synth();
    const report = checks.validateScope(app);
    expect(
      report.violations.flatMap((v) => v.violatingResources.map((r) => `${v.ruleName} at ${r.constructPath}`)),
    ).toEqual([]);
  });
});

describe('the origin secret after a rotation (-c edgeOriginSecretVersion=<VersionId>)', () => {
  const VERSION = 'a1b2c3d4-e5f6-4789-8abc-def012345678';
  const header = (context: Record<string, unknown>) => {
    const config = Object.values(
      edgeAlone(context).findResources('AWS::CloudFront::Distribution') as Record<string, Resource>,
    )[0]!.Properties.DistributionConfig;
    return JSON.stringify(config.Origins[0].OriginCustomHeaders);
  };

  it(
    'names the version in the dynamic reference, so that the deploy changes the distribution and CloudFormation ' +
      'resolves the new value',
    () => {
      const current = header({ ...ORIGIN, ...EDGE });
      const pinned = header({ ...ORIGIN, ...EDGE, edgeOriginSecretVersion: VERSION });
      // Unpinned: the current version, resolved only when the distribution changes for another reason.
      expect(current).toMatch(/:SecretString:::\}\}/);
      expect(pinned).toContain(`:SecretString:::${VERSION}}}`);
      expect(pinned).not.toBe(current);
      expect(header({ ...ORIGIN, ...EDGE, edgeOriginSecretVersion: 'b1b2c3d4-e5f6-4789-8abc-def012345678' })).not.toBe(
        pinned,
      );
    },
  );

  it('refuses a version that is no VersionId, or one without an edge', () => {
    expect(() => synth({ ...ORIGIN, ...EDGE, edgeOriginSecretVersion: 'AWSCURRENT' })).toThrow(
      /VersionId Secrets Manager gave the new value/,
    );
    expect(() => synth({ ...ORIGIN, edgeOriginSecretVersion: VERSION })).toThrow(
      /edgeOriginSecretVersion without an edge/,
    );
  });
});

describe('edge settings', () => {
  it('takes the default rate limit, and refuses what cannot work, saying why', () => {
    const acl = (c: Record<string, unknown>) =>
      Object.values(edgeAlone(c).findResources('AWS::WAFv2::WebACL') as Record<string, Resource>)[0]!.Properties;
    expect((acl({ ...ORIGIN, ...EDGE }).Rules as Json[])[0].Statement.RateBasedStatement.Limit).toBe(
      DEFAULT_EDGE_RATE_LIMIT,
    );
    expect(() => synth({ ...EDGE })).toThrow(/needs the API's own domain as its origin/);
    expect(() => synth({ ...ORIGIN, edgeDomainName: EDGE.edgeDomainName })).toThrow(
      /needs both edgeDomainName and edgeCertificateArn/,
    );
    expect(() =>
      synth({ ...ORIGIN, ...EDGE, edgeCertificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/x' }),
    ).toThrow(/in us-east-1/);
    expect(() => synth({ ...ORIGIN, ...EDGE, edgeRateLimit: '5' })).toThrow(/from 10/);
    expect(() => synth({ ...ORIGIN, ...EDGE, edgeRateLimit: 'lots' })).toThrow(/whole number/);
    expect(() => synth({ ...ORIGIN, edgeRateLimit: '100' })).toThrow(/edgeRateLimit without an edge/);
    expect(() => synth({ ...ORIGIN, ...EDGE, edgeDomainName: ORIGIN.domainName })).toThrow(/must differ/);
  });
});
