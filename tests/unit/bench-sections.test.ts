import { describe, expect, it } from 'vitest';
import { withKeptSections } from '../../bench/report';

const section = (name: string, text: string) => `<!-- ${name}:start -->\n${text}\n<!-- ${name}:end -->`;

describe("a full bench run keeps the sections other modes wrote (bench/run.ts's docs)", () => {
  it('fills an empty placeholder in place, appends a section it does not render, and keeps what it renders', () => {
    const previous = ['# Old', section('search', 'by hand'), section('burst', 'old burst'), section('cpu', 'old cpu')];
    const rendered = ['# New', section('search', ''), '## Edge', section('cpu', 'new cpu')].join('\n\n');
    expect(withKeptSections(rendered, previous.join('\n\n'))).toBe(
      ['# New', section('search', 'by hand'), '## Edge', section('cpu', 'new cpu'), section('burst', 'old burst')].join(
        '\n\n',
      ) + '\n',
    );
  });

  it('changes nothing when there was no earlier report', () => {
    expect(withKeptSections('# New\n', '')).toBe('# New\n');
  });
});
