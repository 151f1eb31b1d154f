/**
 * The dashboard's one way to the api. `client` is openapi-fetch over the types openapi-typescript
 * generates from the api's OpenAPI document (`api/schema.d.ts`, `npm run web:schema`): every path,
 * parameter and answer is typed from the document, nothing written twice. `call()` turns an
 * answer into its data or an ApiError. Same-origin fetch with the session cookie; the CSRF token
 * on every method but GET and HEAD; `{error: 1, message}` (or any status ≥ 400) throws ApiError
 * carrying the message and the field it names (`<field>: <reason>`).
 */
import createClient from 'openapi-fetch';

import type { components, paths } from './api/schema';

/** The OpenAPI document's schemas by name: `Schemas['LinkItemView']`. */
export type Schemas = components['schemas'];

/** The signed-in person, as `POST /auth/session` and `GET /auth/session` answer it. */
export type SessionUser = Schemas['SessionView'];

export class ApiError extends Error {
  /** The field the message names (`url: must be a URL` → `url`), if any. */
  readonly field: string | null;

  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = 'ApiError';
    const named = /^([A-Za-z][\w.[\]]*): /.exec(message);
    this.field = named ? named[1] : null;
  }
}

let csrfToken: string | null = null;

/** Remembers the session's CSRF token (sent as X-CSRF-Token on every change). */
export function setCsrf(token: string | null): void {
  csrfToken = token;
}

type Query = Record<string, string | number | undefined>;

function withQuery(path: string, query?: Query): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query))
    if (v !== undefined && v !== '') params.set(k, String(v));
  const s = params.toString();
  return s ? `${path}?${s}` : path;
}

/**
 * A call outside the typed client (a download, a multipart upload): the parsed body of a success,
 * ApiError otherwise. Prefer `call(client.…)`.
 */
export async function request<T>(
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: string,
  opts: { body?: unknown; query?: Query } = {},
): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
  if (method !== 'GET' && csrfToken) headers['X-CSRF-Token'] = csrfToken;
  let res: Response;
  try {
    res = await fetch(withQuery(path, opts.query), {
      method,
      headers,
      credentials: 'same-origin',
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    });
  } catch {
    throw new ApiError(UNREACHABLE, 0);
  }
  let body: unknown = null;
  if (res.status !== 204) body = await res.json().catch(() => null);
  const envelope = body as { error?: number | string; message?: unknown } | null;
  const failed = !res.ok || (envelope !== null && Number(envelope.error) === 1);
  if (failed) {
    noticeEnded(res);
    const message =
      envelope && typeof envelope.message === 'string'
        ? envelope.message
        : `The request failed (HTTP ${res.status}).`;
    throw new ApiError(message, res.status);
  }
  return body as T;
}

export const api = {
  get: <T>(path: string, query?: Query) => request<T>('GET', path, { query }),
  post: <T>(path: string, body?: unknown) => request<T>('POST', path, { body }),
  put: <T>(path: string, body?: unknown) => request<T>('PUT', path, { body }),
  delete: <T>(path: string) => request<T>('DELETE', path),
};

/** The typed client of the api (paths, parameters and answers from the OpenAPI document). */
export const client = createClient<paths>({ credentials: 'same-origin' });

client.use({
  onRequest({ request }) {
    if (request.method !== 'GET' && request.method !== 'HEAD' && csrfToken)
      request.headers.set('X-CSRF-Token', csrfToken);
    return request;
  },
});

const UNREACHABLE = 'The service cannot be reached: check the connection and try again.';

/** What the app shows on the sign-in page when a session ends under it. */
export const SESSION_ENDED = 'Your session has ended: sign in again.';

const endedListeners = new Set<() => void>();

/**
 * Calls `listener` when an /api call answers 401 while signed in: the session ended (expired,
 * signed out elsewhere, the password changed). The app then shows the sign-in page.
 */
export function onSessionEnded(listener: () => void): () => void {
  endedListeners.add(listener);
  return () => endedListeners.delete(listener);
}

function noticeEnded(response: Response): void {
  if (response.status === 401 && csrfToken && new URL(response.url).pathname.startsWith('/api/'))
    for (const listener of endedListeners) listener();
}

/** An API failure as ApiError: the envelope's message, else the status. */
function failure(body: unknown, status: number): ApiError {
  const envelope = body as { message?: unknown } | null | undefined;
  return new ApiError(
    envelope && typeof envelope.message === 'string'
      ? envelope.message
      : `The request failed (HTTP ${status}).`,
    status,
  );
}

/**
 * The data of an openapi-fetch call, or ApiError: `await call(client.GET('/api/urls', {...}))`.
 * A 2xx answer whose envelope says `error: 1` (a v3 quirk of a few routes) is a failure too.
 */
export async function call<T>(
  pending: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<T> {
  let answer: { data?: T; error?: unknown; response: Response };
  try {
    answer = await pending;
  } catch {
    throw new ApiError(UNREACHABLE, 0);
  }
  const { data, error, response } = answer;
  if (error !== undefined || !response.ok) {
    noticeEnded(response);
    throw failure(error, response.status);
  }
  const envelope = data as { error?: unknown } | undefined;
  if (envelope && Number(envelope.error) === 1) throw failure(data, response.status);
  return data as T;
}

/** The session routes (CONTRACT "Sign-in for people, and the dashboard"). */
export const session = {
  async current(): Promise<SessionUser | null> {
    try {
      const { data } = await call(client.GET('/auth/session'));
      setCsrf(data.csrf);
      return data;
    } catch (err) {
      if (err instanceof ApiError && (err.status === 401 || err.status === 404)) return null;
      throw err;
    }
  },
  async signIn(email: string, password: string): Promise<SessionUser> {
    const { data } = await call(client.POST('/auth/session', { body: { email, password } }));
    setCsrf(data.csrf);
    return data;
  },
  async signOut(): Promise<void> {
    try {
      await call(client.DELETE('/auth/session'));
    } finally {
      setCsrf(null);
    }
  },
};
