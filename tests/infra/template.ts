/** Helpers of the template tests: a fast app (no bundling, no validation), functions and their grants. */
import { App } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import type { Json } from '../json';

export type Resource = { Type: string; Properties: Record<string, Json> };

/** An app that synthesises in well under a second: no bundling, no built-in CloudFormation validation. */
export function templateApp(env = 'dev', context: Record<string, unknown> = {}): App {
  return new App({ context: { env, 'aws:cdk:bundling-stacks': [], ...context }, builtinCloudFormationValidation: false });
}

/** The function whose logical id starts with `id` (e.g. `WebhooksDispatch`). */
export function functionIn(template: Template, id: string): [string, Resource] {
  const match = Object.entries(template.findResources('AWS::Lambda::Function') as Record<string, Resource>).find(([logicalId]) => logicalId.startsWith(id));
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
