/**
 * The API's own field rules (shared/domain), which check every value before anything is written;
 * their refusals become a Failure naming the values as the command line names them.
 */
import type { ParsedBody } from '../shared/domain/body';
import type { FieldErrors } from '../shared/domain/errors';
import type { Fields, Parsed } from '../shared/domain/fields';
import { Failure } from './command';

async function importDomain() {
  const [errors, fields, user, admin, customFields] = await Promise.all([
    import('../shared/domain/errors'),
    import('../shared/domain/fields'),
    import('../shared/domain/user'),
    import('../shared/domain/admin'),
    import('../shared/domain/custom-fields'),
  ]);
  return {
    ValidationError: errors.ValidationError,
    validateFields: fields.validateFields,
    DUPLICATE_USERNAME: user.DUPLICATE_USERNAME,
    userFields: user.userFields,
    customFieldView: admin.customFieldView,
    parseCustomFieldBody: admin.parseCustomFieldBody,
    parseQueueBody: admin.parseQueueBody,
    queueView: admin.queueView,
    sortDefinitions: customFields.sortDefinitions,
  };
}

/** The rules, set by loadDomain() once a command is about to run (help and usage errors stay quick). */
export let domain: Awaited<ReturnType<typeof importDomain>>;

export async function loadDomain(): Promise<void> {
  domain = await importDomain();
}

/** Readable lines for a ValidationError's fields, named as the command line names them. */
function describeErrors(errors: FieldErrors, names: Record<string, string>): string {
  return Object.entries(errors)
    .map(([field, messages]) => {
      const text = Array.isArray(messages)
        ? messages.map(String).join(' ')
        : typeof messages === 'string'
          ? messages
          : JSON.stringify(messages);
      return `  ${names[field] ?? field}: ${text}`;
    })
    .join('\n');
}

/** What `parse` returns; its ValidationError as a Failure headed `what`. */
export function validated<T>(what: string, names: Record<string, string>, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof domain.ValidationError) throw new Failure(`${what}:\n${describeErrors(error.fields, names)}`);
    throw error;
  }
}

/** `data` checked against `fields` as a JSON create body would be. */
export function validFields<F extends Fields>(
  what: string,
  names: Record<string, string>,
  fields: F,
  data: Record<string, unknown>,
): Parsed<F> {
  return validated(what, names, () => {
    const { values, errors } = domain.validateFields(fields, data, 'create', 'json');
    if (Object.keys(errors).length) throw new domain.ValidationError(errors);
    return values;
  });
}

/** The options as the JSON body the API's parsers take. */
export const jsonBody = (data: Record<string, unknown>): ParsedBody => ({ kind: 'json', data, files: [] });
