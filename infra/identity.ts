/**
 * OpenID Connect sign-in for an environment (settings.oidc, with `oidc` in authenticationClasses): the
 * HELPDESK_OIDC_* variables every API function gets, and optionally a Cognito user pool as the issuer
 * (its tokens checked in Cognito mode: `client_id`, `token_use`, `cognito:groups`). Entra ID or Google
 * are federated into the pool by the operator (docs/operations.md, "Signing in with OpenID Connect").
 */
import { CfnOutput, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import {
  AdvancedSecurityMode,
  CfnUserPoolGroup,
  FeaturePlan,
  Mfa,
  UserPool,
  type UserPoolClient,
} from 'aws-cdk-lib/aws-cognito';
import { Construct } from 'constructs';
import type { EnvironmentSettings } from './environments';

/** The Cognito group whose members are staff when the stack makes the pool. */
export const COGNITO_STAFF_GROUP = 'helpdesk-staff';

export class Identity extends Construct {
  /** HELPDESK_OIDC_* for every API function (empty without settings.oidc). */
  readonly environment: Record<string, string> = {};
  readonly userPool?: UserPool;
  readonly client?: UserPoolClient;

  constructor(scope: Construct, id: string, settings: EnvironmentSettings) {
    super(scope, id);
    const oidc = settings.oidc;
    if (!oidc) return;
    const common = {
      HELPDESK_OIDC_CREATE_USERS: String(oidc.createUsers ?? false),
      ...(oidc.groupsClaim ? { HELPDESK_OIDC_GROUPS_CLAIM: oidc.groupsClaim } : {}),
    };
    if (!oidc.cognitoUserPool) {
      if (!oidc.issuer || !oidc.audience)
        throw new Error(`${settings.name}: oidc needs issuer and audience, or cognitoUserPool`);
      Object.assign(this.environment, common, {
        HELPDESK_OIDC_ISSUER: oidc.issuer,
        HELPDESK_OIDC_AUDIENCE: oidc.audience,
        ...(oidc.staffGroup ? { HELPDESK_OIDC_STAFF_GROUP: oidc.staffGroup } : {}),
      });
      return;
    }
    const pool = new UserPool(this, 'Users', {
      userPoolName: `helpdesk-${settings.name}`,
      selfSignUpEnabled: false,
      signInAliases: { email: true },
      autoVerify: { email: true },
      mfa: Mfa.OPTIONAL,
      mfaSecondFactor: { otp: true, sms: false },
      passwordPolicy: {
        minLength: 12,
        requireDigits: true,
        requireLowercase: true,
        requireUppercase: true,
        requireSymbols: true,
      },
      featurePlan: FeaturePlan.PLUS,
      advancedSecurityMode: AdvancedSecurityMode.ENFORCED,
      removalPolicy: settings.removalPolicy === RemovalPolicy.DESTROY ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
    });
    // Staff are those the operator puts in this group (or whose federated groups map to it).
    new CfnUserPoolGroup(this, 'StaffGroup', {
      userPoolId: pool.userPoolId,
      groupName: oidc.staffGroup ?? COGNITO_STAFF_GROUP,
    });
    const client = pool.addClient('Api', {
      generateSecret: false,
      authFlows: { userSrp: true },
      accessTokenValidity: Duration.hours(1),
      idTokenValidity: Duration.hours(1),
      preventUserExistenceErrors: true,
    });
    Validations.of(pool).acknowledge({
      id: 'AwsSolutions-COG2',
      reason: 'MFA is optional in the pool: federated users (Entra ID, Google) get MFA from their own provider.',
    });
    Object.assign(this.environment, common, {
      HELPDESK_OIDC_ISSUER: pool.userPoolProviderUrl,
      HELPDESK_OIDC_AUDIENCE: client.userPoolClientId,
      HELPDESK_OIDC_MODE: 'cognito',
      HELPDESK_OIDC_STAFF_GROUP: oidc.staffGroup ?? COGNITO_STAFF_GROUP,
    });
    this.userPool = pool;
    this.client = client;
    new CfnOutput(Stack.of(this), 'UserPoolId', {
      value: pool.userPoolId,
      description: 'Cognito user pool: the OpenID Connect issuer',
    });
    new CfnOutput(Stack.of(this), 'UserPoolClientId', {
      value: client.userPoolClientId,
      description: "The app client (the tokens' client_id)",
    });
  }
}
