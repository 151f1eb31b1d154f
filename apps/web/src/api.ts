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

/** The typed client of the api (paths, parameters and answers from the OpenAPI document). */
export const client = createClient<paths>({ credentials: 'same-origin' });

/**
 * The workspace the app acts in when it is not one's own (docs/teams.md): sent as `X-Workspace`
 * on every call but the personal ones (`PERSONAL`: the account, the list of workspaces, the admin
 * routes, which are about the person, not a workspace). `null`: one's own.
 */
let workspace: number | null = null;
const PERSONAL = [
  '/auth/',
  '/api/account',
  '/api/workspaces',
  '/api/users',
  '/api/user/',
  '/api/plans',
  '/api/plan/',
  '/api/admin/',
];

export function setWorkspace(id: number | null): void {
  workspace = id;
}

export function currentWorkspace(): number | null {
  return workspace;
}

/**
 * The headers of a call made outside the typed client (a file download): `init`, and what every
 * call carries.
 */
export function headersFor(method: string, path: string, init?: HeadersInit): Headers {
  const headers = new Headers(init);
  decorate(method, path, headers);
  return headers;
}

/** The headers every call carries: the CSRF token on a change, the workspace. */
function decorate(method: string, path: string, headers: Headers): void {
  if (method !== 'GET' && method !== 'HEAD' && csrfToken) headers.set('X-CSRF-Token', csrfToken);
  if (
    workspace !== null &&
    !headers.has('X-Workspace') &&
    !PERSONAL.some((p) => path.startsWith(p))
  )
    headers.set('X-Workspace', String(workspace));
}

client.use({
  onRequest({ request }) {
    decorate(request.method, new URL(request.url).pathname, request.headers);
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

const changedListeners = new Set<() => void>();

/** Calls `listener` when the signed-in person's own details changed (a new e-mail or name). */
export function onSessionChanged(listener: () => void): () => void {
  changedListeners.add(listener);
  return () => changedListeners.delete(listener);
}

/** Says that the person's details changed: the app reads the session again (the header's name). */
export function sessionChanged(): void {
  for (const listener of changedListeners) listener();
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
