/** Helpers of the template tests: a fast app (no bundling, no validation), functions and their grants. */
import { App, NestedStack, type CfnElement, type PolicyViolation, type Stack } from 'aws-cdk-lib';
import { buildHelpdesk } from '../../infra/app';
import { addNagChecks } from '../../infra/nag';
import { Template } from 'aws-cdk-lib/assertions';
import type { Json } from '../json';

export type Resource = { Type: string; Properties: Record<string, Json> };

/** An app that synthesises in well under a second: no bundling, no built-in CloudFormation validation. */
export function templateApp(env = 'dev', context: Record<string, unknown> = {}): App {
  return new App({
    context: { env, 'aws:cdk:bundling-stacks': [], ...context },
    builtinCloudFormationValidation: false,
  });
}

/**
 * The API template (apiTemplate) of `env`'s app with `context`, synthesised once per worker process and
 * shared by the files it runs (the template tests run one after another in one process:
 * vitest.config.ts), as the tests only read templates. Every environment's default app is synthesised
 * by five files: measured, the infra project spent 65 s of CPU with a synthesis per use.
 */
export function apiTemplateOf(env = 'dev', context: Record<string, unknown> = {}): Template {
  const key = `${env} ${JSON.stringify(context)}`;
  let template = synthesised.get(key);
  if (!template) {
    template = apiTemplate(buildHelpdesk(templateApp(env, context)).api);
    synthesised.set(key, template);
  }
  return template;
}
const synthesised = new Map<string, Template>();

/** The function whose logical id starts with `id` (e.g. `WebhooksDispatch`). */
export function functionIn(template: Template, id: string): [string, Resource] {
  const match = Object.entries(template.findResources('AWS::Lambda::Function') as Record<string, Resource>).find(
    ([logicalId]) => logicalId.startsWith(id),
  );
  if (!match) throw new Error(`no function ${id}`);
  return match;
}

/** The statements of the inline policies attached to a function's role. */
export function roleStatements(template: Template, fnLogicalId: string): Record<string, Json>[] {
  const fn = template.findResources('AWS::Lambda::Function')[fnLogicalId] as Resource;
  const role = fn.Properties.Role['Fn::GetAtt'][0];
  return Object.values(template.findResources('AWS::IAM::Policy') as Record<string, Resource>)
    .filter((p) => (p.Properties.Roles as unknown[]).some((r) => JSON.stringify(r) === JSON.stringify({ Ref: role })))
    .flatMap((p) => p.Properties.PolicyDocument.Statement as Record<string, Json>[]);
}

export const actions = (statements: Record<string, Json>[]) => statements.flatMap((s) => [s.Action].flat() as string[]);

/**
 * The API stack and its nested stacks (the route functions: infra/api-stack.ts) as one template, as
 * the tests read it: the resources of all side by side, with the wiring between them undone: a
 * nested stack's parameter reads as what the API stack passes it (a function's table ARN as the
 * import it is), and the API stack's read of a nested output as that output (a route's function).
 */
export function apiTemplate(api: Stack): Template {
  const parent = Template.fromStack(api).toJSON() as { Resources: Record<string, Resource> };
  const resources: Record<string, unknown> = { ...parent.Resources };
  const outputs = new Map<string, Record<string, { Value: unknown }>>();
  const rewrite = (value: unknown, replace: (node: Record<string, unknown>) => unknown): unknown => {
    if (Array.isArray(value)) return value.map((v) => rewrite(v, replace));
    if (value === null || typeof value !== 'object') return value;
    const replaced = replace(value as Record<string, unknown>);
    if (replaced !== undefined) return replaced;
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rewrite(v, replace)]));
  };
  for (const nested of api.node.findAll().filter((c): c is NestedStack => c instanceof NestedStack)) {
    const stackId = api.getLogicalId(nested.nestedStackResource as CfnElement);
    const passed = (parent.Resources[stackId]!.Properties.Parameters ?? {}) as Record<string, unknown>;
    const json = Template.fromStack(nested).toJSON() as {
      Resources: Record<string, Resource>;
      Outputs?: Record<string, { Value: unknown }>;
    };
    outputs.set(stackId, json.Outputs ?? {});
    for (const [id, resource] of Object.entries(json.Resources)) {
      if (id in resources) throw new Error(`logical id ${id} in both ${nested.node.path} and another stack`);
      resources[id] = rewrite(resource, (node) =>
        typeof node.Ref === 'string' && Object.keys(node).length === 1 && node.Ref in passed
          ? passed[node.Ref]
          : undefined,
      );
    }
  }
  const fromOutputs = rewrite(resources, (node) => {
    const getAtt = node['Fn::GetAtt'] as [string, string] | undefined;
    const output =
      getAtt && outputs.get(getAtt[0]) && getAtt[1].startsWith('Outputs.')
        ? outputs.get(getAtt[0])![getAtt[1].slice('Outputs.'.length)]
        : undefined;
    return output?.Value;
  });
  return Template.fromJSON(
    { ...parent, Resources: fromOutputs as Record<string, unknown> },
    { skipCyclicalDependenciesCheck: true },
  );
}

/**
 * The cdk-nag findings left unacknowledged in the whole helpdesk of `env` with `context`, after a synth as `cdk synth`
 * runs it.
 */
export function nagFindings(env: string, context: Record<string, unknown> = {}): string[] {
  const app = templateApp(env, context);
  buildHelpdesk(app);
  const checks = addNagChecks(app);
  app.synth();
  return checks
    .validateScope(app)
    .violations.flatMap((v: PolicyViolation) =>
      v.violatingResources.map((r) => `${v.ruleName} at ${r.constructPath}: ${v.description}`),
    );
}
