/**
 * Errors are values with a status. The error middleware turns each into upstream's body shape:
 * `{"detail": "..."}` for most, `{"field": ["message", ...]}` for validation.
 */
export type FieldErrors = Record<string, unknown>;

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof body.detail === 'string' ? body.detail : `HTTP ${status}`);
  }
}

export class NotFound extends HttpError {
  constructor(detail = 'Not found.') {
    super(404, { detail });
  }
}

export class InvalidPage extends NotFound {
  constructor() {
    super('Invalid page.');
  }
}

/** The challenge of HTTP Basic, the default first authentication scheme. */
export const BASIC_CHALLENGE = 'Basic realm="api"';

/** 401. `challenge` is the first configured scheme's `WWW-Authenticate` value, as DRF answers. */
export class NotAuthenticated extends HttpError {
  constructor(
    readonly detail = 'Authentication credentials were not provided.',
    challenge = BASIC_CHALLENGE,
  ) {
    super(401, { detail }, { 'WWW-Authenticate': challenge });
  }
}

/** 429 with DRF's `Throttled` message and `Retry-After` (whole seconds, rounded up). */
export class Throttled extends HttpError {
  constructor(waitSeconds: number) {
    const wait = Math.max(1, Math.ceil(waitSeconds));
    super(
      429,
      { detail: `Request was throttled. Expected available in ${wait} second${wait === 1 ? '' : 's'}.` },
      { 'Retry-After': String(wait) },
    );
  }
}

export class PermissionDenied extends HttpError {
  constructor(detail = 'You do not have permission to perform this action.') {
    super(403, { detail });
  }
}

export class MethodNotAllowed extends HttpError {
  constructor(method: string) {
    super(405, { detail: `Method "${method.toUpperCase()}" not allowed.` });
  }
}

export class NotAcceptable extends HttpError {
  constructor() {
    super(406, { detail: 'Could not satisfy the request Accept header.' });
  }
}

export class PayloadTooLarge extends HttpError {
  constructor(detail: string) {
    super(413, { detail });
  }
}

export class UnsupportedMediaType extends HttpError {
  constructor(contentType: string) {
    super(415, { detail: `Unsupported media type "${contentType}" in request.` });
  }
}

export class ParseError extends HttpError {
  constructor(detail: string) {
    super(400, { detail });
  }
}

/** 400 with field errors: `{"field": ["message"]}`, keys in the resource's field order. */
export class ValidationError extends HttpError {
  constructor(readonly fields: FieldErrors) {
    super(400, fields);
  }
}

/** The storage layer is briefly unable to serve (throttling): the client may retry. */
export class ServiceUnavailable extends HttpError {
  constructor(retryAfterSeconds = 1) {
    super(
      503,
      { detail: 'Service temporarily unavailable, try again later.' },
      { 'Retry-After': String(retryAfterSeconds) },
    );
  }
}

/** The request conflicts with the resource's state (e.g. deleting a queue that tickets use). */
export class Conflict extends HttpError {
  constructor(detail: string) {
    super(409, { detail });
  }
}

/** An `If-Match` precondition failed: the resource changed since the client read it; nothing was written. */
export class PreconditionFailed extends HttpError {
  constructor(detail = 'Precondition failed: the ticket has changed since the given ETag.') {
    super(412, { detail });
  }
}

/**
 * The record a write was for is gone (deleted by another request between the read and the write):
 * answered 404 Not found by the error middleware, in one place. Handlers that owe another answer
 * (a 400 for a referenced record) catch it first.
 */
export class MissingRecord extends Error {}
