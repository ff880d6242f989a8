/**
 * The `{name}` of a custom field's path. A name the create's rule refuses names no field: 404 before any read (a key
 * over DynamoDB's 1,024 bytes would be refused by the table, not answered).
 */
import { textParam, type ApiEvent } from '../../shared/middleware';
import { NotFound } from '../../shared/domain/errors';
import { isCustomFieldName } from '../../shared/domain/admin';

export function customFieldName(event: ApiEvent): string {
  const name = textParam(event, 'name');
  if (!isCustomFieldName(name)) throw new NotFound();
  return name;
}
