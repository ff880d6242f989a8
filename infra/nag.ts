/**
 * cdk-nag's AwsSolutions rules. cdk-nag 3 is a CDK validation plugin (the v2 Aspect and
 * `NagSuppressions` are gone): `npx cdk synth` runs it after synthesis and fails on any finding that
 * is not acknowledged. Findings are acknowledged in the stacks, next to the construct they concern,
 * with `Validations.of(construct).acknowledge({ id, reason })`; an id names one finding
 * (`AwsSolutions-IAM5[Resource::<Table.Arn>/index/*]`), never a whole rule, where the rule has several.
 * Cross-stack ARNs appear in finding ids as the `Fn::ImportValue` that synthesis puts in their
 * place, so run `validateScope` by hand only on a synthesised app.
 * tests/infra/nag.test.ts checks dev and prod without synthesising the bundles.
 */
import { Stack, Validations, type App } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { AwsSolutionsChecks } from 'cdk-nag';

export function addNagChecks(app: App): AwsSolutionsChecks {
  const checks = new AwsSolutionsChecks(app);
  Validations.of(app).addPlugins(checks);
  return checks;
}

/**
 * How cdk-nag names another stack's ARN in a finding, for acknowledging exactly that finding: by the
 * time the checks run (after synthesis), the reference is `Fn::ImportValue` of the automatic export,
 * whose name `exportValue` (no name given) returns without adding anything to the template.
 * tests/infra/nag.test.ts fails if this ever stops matching.
 */
export function nagImportedArn(resource: IConstruct, arn: string, consumer: Stack): string {
  const producer = Stack.of(resource);
  if (producer === consumer) throw new Error('nagImportedArn: the ARN is not from another stack');
  const imported = consumer.resolve(producer.exportValue(arn)) as { 'Fn::ImportValue'?: string };
  if (typeof imported['Fn::ImportValue'] !== 'string') throw new Error(`nagImportedArn: no export for ${arn}`);
  return imported['Fn::ImportValue'];
}
