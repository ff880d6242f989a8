/**
 * The CDK app (cdk.json runs it): `npx cdk synth|deploy -c env=<dev|staging|prod>` (default dev).
 * The stacks are environment-agnostic (the optional edge's is pinned to us-east-1, CloudFront's
 * region, and no account), so synth needs no AWS account or credentials.
 */
import { pathToFileURL } from 'node:url';
import { App, CrossStackReferences, ReferenceStrength, Tags } from 'aws-cdk-lib';
import { ApiStack } from './api-stack';
import { DataStack } from './data-stack';
import { EdgeStack } from './edge';
import { environmentSettings, withContextOverrides } from './environments';
import { addNagChecks } from './nag';

export interface Helpdesk {
  data: DataStack;
  api: ApiStack;
  edge?: EdgeStack;
}

/** Adds the helpdesk stacks for the app's `env` context (or `envName`) to `app`. */
export function buildHelpdesk(app: App, envName?: string): Helpdesk {
  const settings = withContextOverrides(environmentSettings(envName ?? app.node.tryGetContext('env')), (key) =>
    app.node.tryGetContext(key),
  );
  const prefix = `Helpdesk-${settings.name}`;
  // The API stack reads the table and bucket through exports/imports: CloudFormation then refuses
  // to delete the data stack, or replace what it exports, while the API stack uses it.
  CrossStackReferences.of(app).consume(ReferenceStrength.STRONG);

  const data = new DataStack(app, `${prefix}-Data`, {
    settings,
    description: `Helpdesk ${settings.name}: table and attachments bucket (stateful)`,
  });
  const api = new ApiStack(app, `${prefix}-Api`, {
    settings,
    table: data.table,
    listings: data.listings,
    bucket: data.bucket,
    search: data.search,
    description: `Helpdesk ${settings.name}: HTTP API and functions (stateless)`,
  });
  // CloudFront and WAF in us-east-1 (infra/edge.ts), deployed before the API that requires its secret.
  const edge =
    settings.edge && settings.customDomain
      ? new EdgeStack(app, `${prefix}-Edge`, {
          settings,
          edge: settings.edge,
          originDomain: settings.customDomain.domainName,
          description: `Helpdesk ${settings.name}: CloudFront and WAF in front of the API`,
        })
      : undefined;
  if (edge) api.addStackDependency(edge);

  Tags.of(app).add('project', 'helpdesk');
  Tags.of(app).add('environment', settings.name);
  return { data, api, edge };
}

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (isMain) {
  const app = new App();
  buildHelpdesk(app);
  // AwsSolutions checks: synth fails on any finding the stacks do not acknowledge.
  addNagChecks(app);
  app.synth();
}
