/**
 * cdk-nag AwsSolutions rules (infra/nag.ts) over dev and prod: no unacknowledged finding, error or
 * warning. Bundling and aws-cdk-lib's CloudFormation validation are skipped (stack.test.ts covers
 * the latter for prod), so each environment takes well under a second.
 */
import type { PolicyViolation } from 'aws-cdk-lib';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { describe, expect, it } from 'vitest';
import { buildHelpdesk } from '../../infra/app';
import { addNagChecks } from '../../infra/nag';
import { templateApp } from './template';

function findings(violations: PolicyViolation[]): string[] {
  return violations.flatMap((v) =>
    v.violatingResources.map((r) => `${v.severity} ${v.ruleName} at ${r.constructPath}: ${v.description}`),
  );
}

describe('cdk-nag AwsSolutions', () => {
  it.each(['dev', 'prod'])('leaves no unacknowledged finding in %s', (env) => {
    const app = templateApp(env);
    const { data, api } = buildHelpdesk(app);
    const checks = addNagChecks(app);
    // As `cdk synth` does: synthesis runs the checks as a validation plugin (after aspects and
    // cross-stack references) and throws ValidationFailed with the report on any finding.
    app.synth();
    // The same checks, for a readable list should anything be left.
    const report = checks.validateScope(app);
    expect(findings(report.violations)).toEqual([]);
    expect(report.success).toBe(true);

    // The pack did look at both stacks: a check that saw nothing would pass too.
    const acknowledged = (path: string) =>
      app.node
        .findAll()
        .filter((c) => c.node.path.startsWith(path))
        .flatMap((c) => c.node.metadata.filter((m) => m.type === 'aws:cdk:acknowledged-rules'));
    expect(acknowledged(data.node.path).length).toBeGreaterThan(0);
    expect(acknowledged(api.node.path).length).toBeGreaterThan(0);
  });

  it('reports what is not acknowledged', () => {
    const app = templateApp();
    const { data } = buildHelpdesk(app);
    // The attachments bucket's S1 acknowledgement is its own: a second bucket is reported.
    new Bucket(data, 'Unacknowledged', { enforceSSL: true });
    const checks = addNagChecks(app);
    expect(() => app.synth()).toThrow(/Helpdesk-dev-Data\/Unacknowledged\/Resource[\s\S]*AwsSolutions-S1/);
    const report = checks.validateScope(app);
    expect(report.success).toBe(false);
    expect(findings(report.violations)).toEqual([
      expect.stringMatching(/^error AwsSolutions-S1 at Helpdesk-dev-Data\/Unacknowledged\/Resource: /),
    ]);
  });
});
