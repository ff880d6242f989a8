/**
 * Per-environment settings, chosen with `-c env=<name>` (default `dev`). Everything that differs
 * between environments lives here; the stacks read nothing else.
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';

export type EnvironmentName = 'dev' | 'staging' | 'prod';

export interface EnvironmentSettings {
  name: EnvironmentName;
  /**
   * Value of HELPDESK_ACTIVATE_API_ENDPOINT given to every function; anything but 'True' makes every
   * API route answer 404 (upstream's switch). The operator turns an environment's API off by setting
   * 'False' here and redeploying the API stack (`npx cdk deploy -c env=<name> Helpdesk-<name>-Api`),
   * which replaces no data.
   */
  activateApi: 'True' | 'False';
  /**
   * HELPDESK_AUTHENTICATION_CLASSES for every function: the schemes tried in order, e.g.
   * 'basic,token' to accept API tokens too (docs/security.md). Unset: 'basic' only.
   */
  authenticationClasses?: string;
  /** Lambda memory (MB); CPU scales with it. */
  memorySize: number;
  /** Retention of each function's log group and of the API's access log group. */
  logRetentionDays: RetentionDays;
  /**
   * Reserved concurrency of every function (`reservedConcurrentExecutions`), or undefined for none
   * (the functions then share the account's unreserved pool). Deliberately unset everywhere: Lambda
   * refuses any reservation that would leave the account fewer than 100 unreserved executions, so on
   * a new or small account (limit 10-1000) reserving for 33 functions makes the deploy fail. The
   * stage throttle (below) is what bounds load. Set it only for an account whose concurrency limit
   * has been raised, knowing the figure applies to each of the functions.
   */
  reservedConcurrency?: number;
  /** What happens to the table and the bucket when they leave the template or the stack is deleted. */
  removalPolicy: RemovalPolicy;
  /** DynamoDB deletion protection and CloudFormation termination protection of the data stack. */
  deletionProtection: boolean;
  /** `$default` stage throttling: steady requests per second and burst. */
  throttle: { rateLimit: number; burstLimit: number };
}

export const environments: Record<EnvironmentName, EnvironmentSettings> = {
  dev: {
    name: 'dev',
    activateApi: 'True',
    memorySize: 512,
    logRetentionDays: RetentionDays.ONE_WEEK,
    removalPolicy: RemovalPolicy.DESTROY,
    deletionProtection: false,
    throttle: { rateLimit: 50, burstLimit: 100 },
  },
  staging: {
    name: 'staging',
    activateApi: 'True',
    memorySize: 512,
    logRetentionDays: RetentionDays.ONE_MONTH,
    removalPolicy: RemovalPolicy.RETAIN,
    deletionProtection: false,
    throttle: { rateLimit: 100, burstLimit: 200 },
  },
  prod: {
    name: 'prod',
    activateApi: 'True',
    memorySize: 512,
    logRetentionDays: RetentionDays.THREE_MONTHS,
    removalPolicy: RemovalPolicy.RETAIN,
    deletionProtection: true,
    throttle: { rateLimit: 500, burstLimit: 1000 },
  },
};

export const DEFAULT_ENVIRONMENT: EnvironmentName = 'dev';

/** The settings for `name` (the `env` context value); throws on an unknown name. */
export function environmentSettings(name: unknown = DEFAULT_ENVIRONMENT): EnvironmentSettings {
  const key = name === undefined || name === null || name === '' ? DEFAULT_ENVIRONMENT : String(name);
  if (!Object.hasOwn(environments, key)) {
    throw new Error(`Unknown environment "${key}" (-c env=...): expected one of ${Object.keys(environments).join(', ')}`);
  }
  return environments[key as EnvironmentName];
}
