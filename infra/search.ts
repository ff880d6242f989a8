/**
 * Ticket search on AWS: Aurora PostgreSQL Serverless v2 (PostgreSQL's full-text search, the engine
 * the local runtime embeds as PGlite), reached through the RDS Data API, so that no function needs
 * a VPC. Minimum capacity 0: idle, the cluster pauses and only its storage is billed; the first
 * statement after a pause waits while it resumes (docs/cost.md). Encrypted, IAM authentication on,
 * in isolated subnets with no route out and no inbound rule: only the Data API reaches it. The
 * functions that search or index get the Data API on this cluster and its secret, nothing else.
 */
import { CfnOutput, Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { SubnetType, Vpc } from 'aws-cdk-lib/aws-ec2';
import type { IGrantable } from 'aws-cdk-lib/aws-iam';
import {
  AuroraPostgresEngineVersion,
  ClusterInstance,
  Credentials,
  DatabaseCluster,
  DatabaseClusterEngine,
} from 'aws-cdk-lib/aws-rds';
import { Construct } from 'constructs';
import type { EnvironmentSettings } from './environments';

/** The database the index lives in (HELPDESK_SEARCH_DATABASE). */
const DATABASE = 'helpdesk';

export class SearchCluster extends Construct {
  readonly cluster: DatabaseCluster;

  constructor(scope: Construct, id: string, settings: EnvironmentSettings & { search: { maxCapacity: number } }) {
    super(scope, id);
    const vpc = new Vpc(this, 'Vpc', {
      maxAzs: 2,
      natGateways: 0,
      subnetConfiguration: [{ name: 'isolated', subnetType: SubnetType.PRIVATE_ISOLATED }],
    });
    Validations.of(vpc).acknowledge({
      id: 'AwsSolutions-VPC7',
      reason:
        'Isolated subnets that hold only the search cluster, with no route out and no inbound rule: only the RDS ' +
        'Data API reaches it.',
    });
    this.cluster = new DatabaseCluster(this, 'Cluster', {
      engine: DatabaseClusterEngine.auroraPostgres({ version: AuroraPostgresEngineVersion.VER_16_6 }),
      writer: ClusterInstance.serverlessV2('Writer'),
      serverlessV2MinCapacity: 0,
      serverlessV2MaxCapacity: settings.search.maxCapacity,
      serverlessV2AutoPauseDuration: Duration.minutes(5),
      enableDataApi: true,
      iamAuthentication: true,
      storageEncrypted: true,
      credentials: Credentials.fromGeneratedSecret('helpdesk'),
      defaultDatabaseName: DATABASE,
      vpc,
      vpcSubnets: { subnetType: SubnetType.PRIVATE_ISOLATED },
      deletionProtection: settings.deletionProtection,
      // The index is rebuilt from the table (`npm run helpdesk -- reindex`): nothing in it is kept elsewhere only.
      removalPolicy: settings.removalPolicy === RemovalPolicy.DESTROY ? RemovalPolicy.DESTROY : RemovalPolicy.SNAPSHOT,
      cloudwatchLogsExports: ['postgresql'],
      backup: { retention: Duration.days(1) },
    });
    Validations.of(this.cluster).acknowledge(
      {
        id: 'AwsSolutions-RDS11',
        reason:
          'Reached only through the RDS Data API (no network path to the port exists), so the port hides nothing.',
      },
      {
        id: 'AwsSolutions-SMG4',
        reason:
          "The database user's secret is read only by the Data API on behalf of the search functions; rotation " +
          'would need a function in the VPC for an index rebuilt from the table.',
      },
      ...(settings.deletionProtection
        ? []
        : [{ id: 'AwsSolutions-RDS10', reason: 'Not a production environment: the index is rebuilt from the table.' }]),
    );
    new CfnOutput(scope, 'SearchClusterArn', {
      value: this.cluster.clusterArn,
      description: 'HELPDESK_SEARCH_CLUSTER_ARN for `npm run helpdesk -- reindex --table ...`',
    });
    new CfnOutput(scope, 'SearchSecretArn', {
      value: this.cluster.secret!.secretArn,
      description: 'HELPDESK_SEARCH_SECRET_ARN for the same',
    });
  }

  /** The settings a function that searches or indexes reads (shared/config.ts `search`). */
  get environment(): Record<string, string> {
    return {
      HELPDESK_SEARCH: 'aurora',
      HELPDESK_SEARCH_CLUSTER_ARN: this.cluster.clusterArn,
      HELPDESK_SEARCH_SECRET_ARN: this.cluster.secret!.secretArn,
      HELPDESK_SEARCH_DATABASE: DATABASE,
    };
  }

  /** The Data API on this cluster and the read of its secret: ExecuteStatement and the transaction calls. */
  grant(fn: IGrantable): void {
    this.cluster.grantDataApiAccess(fn);
  }
}
