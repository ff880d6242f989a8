/**
 * Per-environment settings (infra/environments.ts) and what they change in the template: every
 * environment states each setting, the command line (`-c key=value`) can give the operator's own
 * values, and a custom domain becomes an HTTP API domain name mapped to the stage.
 */
import { describe, expect, it } from 'vitest';
import { buildHelpdesk } from '../../infra/app';
import { environments, withContextOverrides } from '../../infra/environments';
import { apiTemplate, apiTemplateOf, templateApp } from './template';

function synthApi(env: string, context: Record<string, string> = {}) {
  const app = templateApp(env, context);
  const helpdesk = buildHelpdesk(app);
  return { helpdesk, api: apiTemplate(helpdesk.api) };
}

const CERTIFICATE = 'arn:aws:acm:eu-west-1:123456789012:certificate/11111111-2222-3333-4444-555555555555';

describe('environment settings', () => {
  it('states every deploy setting in each environment', () => {
    for (const settings of Object.values(environments)) {
      expect(settings.activateApi, settings.name).toMatch(/^(True|False)$/);
      expect(settings.memorySize).toBeGreaterThanOrEqual(128);
      expect(settings.throttle.rateLimit).toBeGreaterThan(0);
      expect(settings.throttle.burstLimit).toBeGreaterThanOrEqual(settings.throttle.rateLimit);
      expect(settings.logRetentionDays).toBeGreaterThan(0);
      expect(settings.removalPolicy).toBeDefined();
      expect(settings.logLevel).toBeDefined();
    }
    // Only the throwaway environment may lose its data with its stack.
    expect(environments.dev.removalPolicy).toBe('destroy');
    expect(environments.staging.removalPolicy).toBe('retain');
    expect(environments.prod.removalPolicy).toBe('retain');
  });

  it('takes the alarm e-mail and the custom domain from the command line', () => {
    const context: Record<string, string> = {
      alarmEmail: 'ops@example.com',
      domainName: 'help.example.com',
      certificateArn: CERTIFICATE,
    };
    const settings = withContextOverrides(environments.prod, (key) => context[key]);
    expect(settings).toMatchObject({
      name: 'prod',
      alarmEmail: 'ops@example.com',
      customDomain: { domainName: 'help.example.com', certificateArn: CERTIFICATE },
    });
    expect(withContextOverrides(environments.prod, () => undefined)).toEqual(environments.prod);
  });

  it(
    'traces no function with the X-Ray SDK unless the deploy names some, and ' + 'refuses a name that is no function',
    () => {
      for (const settings of Object.values(environments)) expect(settings.tracedHandlers, settings.name).toEqual([]);
      const traced = withContextOverrides(environments.prod, (key) =>
        key === 'traced' ? 'tickets/create, followups/create' : undefined,
      );
      expect(traced.tracedHandlers).toEqual(['tickets/create', 'followups/create']);
      expect(() =>
        withContextOverrides(environments.prod, (key) => (key === 'traced' ? 'tickets/craete' : undefined)),
      ).toThrow(/traced names "tickets\/craete", which is no function/);
      expect(() =>
        withContextOverrides(environments.prod, (key) => (key === 'traced' ? '../../x/y' : undefined)),
      ).toThrow(/which is no function/);
    },
  );

  it('refuses a domain without its certificate, or a certificate without its domain', () => {
    expect(() => synthApi('staging', { domainName: 'help.example.com' })).toThrow(
      /needs both domainName and certificateArn/,
    );
    expect(() => synthApi('staging', { certificateArn: CERTIFICATE })).toThrow(
      /needs both domainName and certificateArn/,
    );
  });
});

describe('custom domain', () => {
  it('is absent unless the environment has one', () => {
    const { api } = synthApi('prod');
    api.resourceCountIs('AWS::ApiGatewayV2::DomainName', 0);
    api.resourceCountIs('AWS::ApiGatewayV2::ApiMapping', 0);
    expect(Object.keys(api.findOutputs('CustomDomain*'))).toEqual([]);
  });

  it('maps the domain, with its ACM certificate, to the $default stage, and outputs where to point it', () => {
    const { helpdesk, api } = synthApi('prod', { domainName: 'help.example.com', certificateArn: CERTIFICATE });
    api.resourceCountIs('AWS::ApiGatewayV2::DomainName', 1);
    api.hasResourceProperties('AWS::ApiGatewayV2::DomainName', {
      DomainName: 'help.example.com',
      DomainNameConfigurations: [{ CertificateArn: CERTIFICATE, EndpointType: 'REGIONAL', SecurityPolicy: 'TLS_1_2' }],
    });
    const apiId = helpdesk.api.getLogicalId(helpdesk.api.api.node.defaultChild as never);
    const domainId = Object.keys(api.findResources('AWS::ApiGatewayV2::DomainName'))[0];
    api.hasResourceProperties('AWS::ApiGatewayV2::ApiMapping', {
      ApiId: { Ref: apiId },
      Stage: '$default',
      DomainName: { Ref: domainId },
    });
    const outputs = api.findOutputs('*');
    expect(outputs.CustomDomainUrl?.Value).toBe('https://help.example.com/');
    expect(JSON.stringify(outputs.CustomDomainTarget?.Value)).toContain('RegionalDomainName');
    expect(JSON.stringify(outputs.CustomDomainHostedZoneId?.Value)).toContain('RegionalHostedZoneId');
    // The execute-api URL stays, for the CLI's --stack-outputs and for checks before DNS is set.
    expect(outputs.ApiUrl).toBeDefined();
  });
});

describe('CORS', () => {
  it('is off by default in every environment', () => {
    for (const env of Object.keys(environments)) {
      const api = apiTemplateOf(env);
      const httpApi = Object.values(api.findResources('AWS::ApiGatewayV2::Api'))[0] as {
        Properties: Record<string, unknown>;
      };
      expect(httpApi.Properties.CorsConfiguration, env).toBeUndefined();
    }
  });

  it(
    'lets API Gateway answer preflights for the listed origins, with the route ' + 'table methods and the API headers',
    () => {
      const { api } = synthApi('staging', { corsOrigins: 'https://app.example.com,http://localhost:5173' });
      api.hasResourceProperties('AWS::ApiGatewayV2::Api', {
        CorsConfiguration: {
          AllowOrigins: ['https://app.example.com', 'http://localhost:5173'],
          AllowMethods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
          AllowHeaders: ['Authorization', 'Content-Type', 'If-Match', 'If-None-Match', 'Idempotency-Key'],
          ExposeHeaders: ['ETag', 'Retry-After', 'Location', 'Allow', 'WWW-Authenticate', 'Idempotent-Replayed'],
          MaxAge: 3600,
        },
      });
      const httpApi = Object.values(api.findResources('AWS::ApiGatewayV2::Api'))[0] as {
        Properties: { CorsConfiguration: Record<string, unknown> };
      };
      // Basic credentials go in a header the script sets: no cookies, so no credentials mode.
      expect(httpApi.Properties.CorsConfiguration.AllowCredentials).toBeUndefined();
    },
  );

  it('refuses an origin with a path', () => {
    expect(() => synthApi('dev', { corsOrigins: 'https://app.example.com/' })).toThrow(/not an origin/);
  });
});

describe('OpenID Connect', () => {
  it(
    '-c cognitoUserPool=true makes a user pool the issuer, in Cognito mode, ' + 'and lets functions bind identities',
    () => {
      const { api } = synthApi('dev', {
        authenticationClasses: 'basic,oidc',
        cognitoUserPool: 'true',
        oidcCreateUsers: 'true',
      });
      api.resourceCountIs('AWS::Cognito::UserPool', 1);
      api.resourceCountIs('AWS::Cognito::UserPoolClient', 1);
      api.hasResourceProperties('AWS::Cognito::UserPoolGroup', { GroupName: 'helpdesk-staff' });
      const variables = Object.values(api.findResources('AWS::Lambda::Function')).map(
        (f) => (f.Properties as { Environment?: { Variables?: Record<string, unknown> } }).Environment?.Variables ?? {},
      );
      const apiFunctions = variables.filter((v) => v.HELPDESK_AUTHENTICATION_CLASSES === 'basic,oidc');
      expect(apiFunctions.length).toBeGreaterThan(0);
      for (const v of apiFunctions)
        expect(v).toMatchObject({
          HELPDESK_OIDC_MODE: 'cognito',
          HELPDESK_OIDC_CREATE_USERS: 'true',
          HELPDESK_OIDC_STAFF_GROUP: 'helpdesk-staff',
        });
    },
  );

  it('refuses the oidc class without an issuer and audience, or a pool', () => {
    expect(() => withContextOverrides(environments.dev, (key) => ({ authenticationClasses: 'oidc' })[key])).toThrow(
      'the oidc class needs',
    );
    const settings = withContextOverrides(
      environments.dev,
      (key) =>
        ({ authenticationClasses: 'basic,oidc', oidcIssuer: 'https://login.example.com', oidcAudience: 'api' })[key],
    );
    expect(settings.oidc).toMatchObject({ issuer: 'https://login.example.com', audience: 'api' });
  });
});
