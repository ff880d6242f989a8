/**
 * The optional edge of an environment (EnvironmentSettings.edge): CloudFront with AWS WAF in front of
 * the API, since an HTTP API takes no WAF of its own.
 *
 * - **Its own stack, in us-east-1** (`Helpdesk-<env>-Edge`): a WAF web ACL for CloudFront must be
 *   made there, and so is the distribution's certificate. It needs nothing from the other stacks but
 *   the API's own domain (a setting), so no cross-region reference is involved.
 * - **The firewall**: a rate-based rule per client address, and AWS's managed rule groups for bad
 *   reputation addresses, common exploits (with the body size rule counting rather than blocking:
 *   the API takes bodies up to 4 MiB and answers 413 itself beyond) and known bad inputs.
 * - **The distribution** forwards every method, header (Authorization included: caching is off),
 *   query string and body to the API's own domain over HTTPS, and adds a secret header that the
 *   functions require (shared/middleware/origin.ts): the API stack turns its default execute-api
 *   endpoint off, and its custom domain, the one way left around the firewall, refuses requests
 *   without the secret. The secret is generated in Secrets Manager here and reaches CloudFront by a
 *   CloudFormation dynamic reference, never through the template's text or this repository; after a
 *   rotation, the reference names the new version (EdgeSettings.originSecretVersion).
 * - **The viewer's address** reaches the API in CloudFront-Viewer-Address, which the functions
 *   believe only from a request that carries the secret (shared/domain/client-address.ts).
 */
import { CfnOutput, RemovalPolicy, SecretValue, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  HttpVersion,
  OriginProtocolPolicy,
  OriginRequestPolicy,
  OriginSslPolicy,
  PriceClass,
  SecurityPolicyProtocol,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import type { Construct } from 'constructs';
import type { EdgeSettings, EnvironmentSettings } from './environments';
import { ORIGIN_HEADER } from '../shared/middleware/origin';

/** CloudFront's region: its web ACLs and certificates live there. */
export const EDGE_REGION = 'us-east-1';

/** The origin secret's name: fixed, so that the API stack's functions can name it without a reference. */
export const originSecretName = (environment: string) => `helpdesk-${environment}-origin-verify`;

/** AWS managed rule groups, in evaluation order after the rate rule. */
export const MANAGED_RULE_GROUPS = [
  'AWSManagedRulesAmazonIpReputationList',
  'AWSManagedRulesCommonRuleSet',
  'AWSManagedRulesKnownBadInputsRuleSet',
] as const;

/**
 * The secret's value for CloudFront's header, as a CloudFormation dynamic reference (never in the
 * template's text). CloudFormation resolves one only when the resource holding it changes, so a new
 * value in the secret alone never reaches CloudFront: naming the new version changes the reference,
 * and with it the distribution, on the next deploy.
 */
export function originSecretValue(secret: Secret, versionId: string | undefined): string {
  return (versionId ? SecretValue.secretsManager(secret.secretArn, { versionId }) : secret.secretValue).unsafeUnwrap();
}

export interface EdgeStackProps extends StackProps {
  settings: EnvironmentSettings;
  edge: EdgeSettings;
  /** The API's own domain (EnvironmentSettings.customDomain), CloudFront's origin. */
  originDomain: string;
}

const visibility = (metricName: string): CfnWebACL.VisibilityConfigProperty => ({
  metricName,
  cloudWatchMetricsEnabled: true,
  sampledRequestsEnabled: true,
});

export class EdgeStack extends Stack {
  readonly firewall: CfnWebACL;
  readonly distribution: Distribution;
  readonly originSecret: Secret;

  constructor(scope: Construct, id: string, props: EdgeStackProps) {
    const { settings, edge, originDomain, ...stackProps } = props;
    super(scope, id, { ...stackProps, env: { account: stackProps.env?.account, region: EDGE_REGION } });

    this.originSecret = new Secret(this, 'OriginSecret', {
      secretName: originSecretName(settings.name),
      description:
        `Helpdesk ${settings.name}: the header CloudFront sends to the API, which refuses requests without ` + `it`,
      generateSecretString: { passwordLength: 48, excludePunctuation: true },
      removalPolicy: RemovalPolicy.DESTROY,
    });
    Validations.of(this.originSecret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'Not a credential of any user: it proves a request came through CloudFront, whose header is set from it ' +
        'at deploy. Rotation is a step of docs/operations.md (a new value, then a deploy naming its version with ' +
        '-c edgeOriginSecretVersion); the functions accept the previous value for a grace period meanwhile ' +
        '(shared/middleware/origin.ts).',
    });

    const managedRule = (name: (typeof MANAGED_RULE_GROUPS)[number], priority: number): CfnWebACL.RuleProperty => ({
      name,
      priority,
      overrideAction: { none: {} },
      statement: {
        managedRuleGroupStatement: {
          vendorName: 'AWS',
          name,
          // The API takes bodies up to 4 MiB (attachments) and answers 413 itself beyond; the common
          // rule set would block any body over 8 KB.
          ...(name === 'AWSManagedRulesCommonRuleSet'
            ? { ruleActionOverrides: [{ name: 'SizeRestrictions_BODY', actionToUse: { count: {} } }] }
            : {}),
        },
      },
      visibilityConfig: visibility(name),
    });

    this.firewall = new CfnWebACL(this, 'Firewall', {
      name: `helpdesk-${settings.name}-edge`,
      description: `Helpdesk ${settings.name}: rate limit per address and AWS managed rules in front of the API`,
      scope: 'CLOUDFRONT',
      defaultAction: { allow: {} },
      visibilityConfig: visibility(`helpdesk-${settings.name}-edge`),
      rules: [
        {
          name: 'RatePerAddress',
          priority: 0,
          action: { block: {} },
          statement: {
            rateBasedStatement: { aggregateKeyType: 'IP', limit: edge.rateLimitPer5Minutes, evaluationWindowSec: 300 },
          },
          visibilityConfig: visibility('RatePerAddress'),
        },
        ...MANAGED_RULE_GROUPS.map((name, i) => managedRule(name, i + 1)),
      ],
    });

    this.distribution = new Distribution(this, 'Distribution', {
      comment: `Helpdesk ${settings.name} API`,
      domainNames: [edge.domainName],
      certificate: Certificate.fromCertificateArn(this, 'Certificate', edge.certificateArn),
      minimumProtocolVersion: SecurityPolicyProtocol.TLS_V1_2_2021,
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_100,
      webAclId: this.firewall.attrArn,
      defaultBehavior: {
        origin: new HttpOrigin(originDomain, {
          protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
          originSslProtocols: [OriginSslPolicy.TLS_V1_2],
          customHeaders: { [ORIGIN_HEADER]: originSecretValue(this.originSecret, edge.originSecretVersion) },
        }),
        allowedMethods: AllowedMethods.ALLOW_ALL,
        viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
        // An API answer is per caller: nothing is cached, and so every viewer header but Host
        // (Authorization among them) and the whole query string reach the API. This managed policy
        // also adds CloudFront's own headers, CloudFront-Viewer-Address among them: the failed-login
        // throttle counts by it (shared/domain/client-address.ts).
        cachePolicy: CachePolicy.CACHING_DISABLED,
        originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
        compress: false,
      },
    });
    Validations.of(this.distribution).acknowledge({
      id: 'AwsSolutions-CFR1',
      reason:
        'A helpdesk API serves its customers wherever they are; the rate rule and the managed rules apply ' +
        'everywhere instead.',
    });
    Validations.of(this.distribution).acknowledge({
      id: 'AwsSolutions-CFR3',
      reason:
        "Every request that reaches the API is in the stage's access log (api-stack.ts), and WAF's sampled " +
        "requests and metrics show what the firewall stopped; CloudFront's own logs would only repeat them at " +
        'extra cost.',
    });

    new CfnOutput(this, 'EdgeUrl', {
      value: `https://${edge.domainName}/`,
      description: 'Base URL of the API through its edge',
    });
    new CfnOutput(this, 'EdgeTarget', {
      value: this.distribution.distributionDomainName,
      description: `Point ${edge.domainName} here (a CNAME, or a Route 53 alias)`,
    });
  }
}
