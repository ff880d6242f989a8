/**
 * The stateful stack: the single DynamoDB table and the attachments bucket. Nothing here changes
 * when code changes, so an application deploy can never replace (or empty) the data.
 */
import { Duration, RemovalPolicy, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import {
  AttributeType,
  BillingMode,
  ProjectionType,
  StreamViewType,
  Table,
  TableEncryption,
} from 'aws-cdk-lib/aws-dynamodb';
import { BlockPublicAccess, Bucket, BucketEncryption, HttpMethods, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { LARGE_ANSWER_PREFIX } from '../shared/store/keys';
import type { Construct } from 'constructs';
import { LISTINGS_SCHEMA, projectionOf, TABLE_SCHEMA, type IndexSchema } from '../shared/store/schema';
import { listingsTableOf } from '../shared/config';
import type { EnvironmentSettings } from './environments';
import { SearchCluster } from './search';

export interface DataStackProps extends StackProps {
  settings: EnvironmentSettings;
}

export class DataStack extends Stack {
  readonly table: Table;
  /** The filtered lists' listing items (shared/store/schema.ts LISTINGS_SCHEMA), named after the table. */
  readonly listings: Table;
  readonly bucket: Bucket;
  /** Ticket search's engine, where the environment has search on. */
  readonly search?: SearchCluster;

  constructor(scope: Construct, id: string, props: DataStackProps) {
    const { settings, ...stackProps } = props;
    super(scope, id, { terminationProtection: settings.deletionProtection, ...stackProps });

    // What both tables share: on-demand within the environment's caps, encrypted, recoverable, protected as the data.
    const tableProps = {
      billingMode: BillingMode.PAY_PER_REQUEST,
      maxReadRequestUnits: settings.tableMaxThroughput.readUnits,
      maxWriteRequestUnits: settings.tableMaxThroughput.writeUnits,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: TableEncryption.AWS_MANAGED,
      deletionProtection: settings.deletionProtection,
      removalPolicy: settings.removalPolicy,
    };
    this.table = new Table(this, 'Table', {
      ...tableProps,
      partitionKey: { name: TABLE_SCHEMA.partitionKey, type: AttributeType.STRING },
      sortKey: { name: TABLE_SCHEMA.sortKey, type: AttributeType.STRING },
      timeToLiveAttribute: TABLE_SCHEMA.timeToLive,
      // Feeds the webhook dispatcher (infra/webhooks.ts) and the ticket counts (infra/stream-consumer.ts),
      // each filtered to its items.
      stream: StreamViewType[TABLE_SCHEMA.stream],
    });
    addIndexes(this.table, TABLE_SCHEMA.indexes);

    // Derived from the table (the backfill rebuilds it: its point-in-time recovery is a few cents a month). Every
    // function finds it by the table's name (shared/config.ts listingsTableOf): no setting of its own.
    this.listings = new Table(this, 'Listings', {
      ...tableProps,
      tableName: listingsTableOf(this.table.tableName),
      partitionKey: { name: LISTINGS_SCHEMA.partitionKey, type: AttributeType.STRING },
      timeToLiveAttribute: LISTINGS_SCHEMA.timeToLive,
    });
    addIndexes(this.listings, LISTINGS_SCHEMA.indexes);

    const destroy = settings.removalPolicy === RemovalPolicy.DESTROY;
    this.bucket = new Bucket(this, 'Attachments', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      encryption: BucketEncryption.S3_MANAGED,
      versioned: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [
        {
          id: 'noncurrent-versions-and-incomplete-uploads',
          noncurrentVersionExpiration: Duration.days(30),
          abortIncompleteMultipartUploadAfter: Duration.days(1),
          // Once the noncurrent versions are gone, remove the lone delete markers too.
          expiredObjectDeleteMarker: true,
        },
        {
          // Answers too large for a function to return, parked for a presigned link valid 5 minutes
          // (shared/middleware/large-answers.ts): a day is S3's shortest expiry.
          id: 'parked-answers',
          prefix: LARGE_ANSWER_PREFIX,
          expiration: Duration.days(1),
          noncurrentVersionExpiration: Duration.days(1),
        },
      ],
      // A browser script that follows a parked answer's 303 reads it from S3 across origins, its Origin then "null"
      // (a redirect from another origin taints it): any origin may GET, which only a presigned link allows anyway.
      cors: [{ allowedMethods: [HttpMethods.GET], allowedOrigins: ['*'], maxAge: 3000 }],
      removalPolicy: settings.removalPolicy,
      // A throwaway environment can be deleted with its files; elsewhere the bucket outlives the stack.
      autoDeleteObjects: destroy,
    });
    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'No S3 server access logs: the bucket is private (BlockPublicAccess, TLS only, no ACLs). Uploads and ' +
        'deletes are made by the API functions (each request in the API access log and the function logs); ' +
        'downloads are presigned GETs the API issues (each issuance logged, valid 5 minutes) that reach S3 ' +
        'directly, so the record of the downloads themselves is CloudTrail S3 data events, which an account ' +
        'enables across buckets (docs/security.md), not a per-bucket log in a second bucket.',
    });
    if (settings.search) this.search = new SearchCluster(this, 'Search', { ...settings, search: settings.search });
  }
}

/** A table's indexes, as its schema has them. */
function addIndexes(table: Table, indexes: readonly IndexSchema[]): void {
  for (const index of indexes) {
    const { type, attributes } = projectionOf(index);
    table.addGlobalSecondaryIndex({
      indexName: index.name,
      partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
      sortKey: { name: index.sortKey, type: AttributeType.STRING },
      projectionType: ProjectionType[type],
      ...(attributes ? { nonKeyAttributes: attributes } : {}),
    });
  }
}
