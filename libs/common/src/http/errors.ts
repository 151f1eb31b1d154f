/**
 * Domain errors: services throw these, the global filter maps them to `{error: 1, message}`
 * with the status below. Messages are for clients: they name the field, never leak internals.
 */
export class AppError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** 400: a field is invalid; the message starts with the field's name. */
export class InvalidFieldError extends AppError {
  constructor(
    readonly field: string,
    reason: string,
  ) {
    super(400, `${field}: ${reason}`);
  }
}

export class BadRequestError extends AppError {
  constructor(message: string) {
    super(400, message);
  }
}

export class UnauthorizedError extends AppError {
  constructor(message = 'A valid API key is required') {
    super(401, message);
  }
}

export class ForbiddenError extends AppError {
  constructor(message = 'You do not have permission to do this') {
    super(403, message);
  }
}

/** 404 for unknown ids and for other users' ids alike: never reveal that a row exists. */
export class NotFoundError extends AppError {
  constructor(what = 'Resource') {
    super(404, `${what} not found`);
  }
}

export class ConflictError extends AppError {
  constructor(message: string) {
    super(409, message);
  }
}

export class GoneError extends AppError {
  constructor(message: string) {
    super(410, message);
  }
}

/** 429 with `Retry-After: <retryAfter>` (seconds): an action repeated sooner than it may be. */
export class TooManyRequestsError extends AppError {
  constructor(
    message: string,
    readonly retryAfter: number,
  ) {
    super(429, message);
  }
}

export class ServiceUnavailableError extends AppError {
  constructor(message = 'Service temporarily unavailable, try again shortly') {
    super(503, message);
  }
}
