/**
 * A JSON value that a test reads field by field: a response body, a log record, a template's
 * resource. `any` on purpose, in this one place: assertions name the fields they expect, and a type
 * for every body would only repeat them.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;
