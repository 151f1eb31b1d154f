/**
 * The dashboard's one way to the api: same-origin fetch with the session cookie, the CSRF token
 * on every method but GET and HEAD, and the error envelope `{error: 1, message}` turned into an
 * ApiError carrying the message (and the field it names, `<field>: <reason>`).
 */

/** The signed-in person, as `POST /auth/session` and `GET /auth/session` answer it. */
export interface SessionUser {
  id: number;
  email: string;
  username: string;
  csrf: string;
}

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

/** Calls the api; resolves to the parsed body of a success, throws ApiError otherwise. */
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
    throw new ApiError('The service cannot be reached: check the connection and try again.', 0);
  }
  let body: unknown = null;
  if (res.status !== 204) body = await res.json().catch(() => null);
  const envelope = body as { error?: number | string; message?: unknown } | null;
  const failed = !res.ok || (envelope !== null && Number(envelope.error) === 1);
  if (failed) {
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

/** The session routes (CONTRACT "Sign-in for people, and the dashboard"). */
export const session = {
  async current(): Promise<SessionUser | null> {
    try {
      const { data } = await api.get<{ data: SessionUser }>('/auth/session');
      setCsrf(data.csrf);
      return data;
    } catch (err) {
      if (err instanceof ApiError && (err.status === 401 || err.status === 404)) return null;
      throw err;
    }
  },
  async signIn(email: string, password: string): Promise<SessionUser> {
    const { data } = await api.post<{ data: SessionUser }>('/auth/session', { email, password });
    setCsrf(data.csrf);
    return data;
  },
  async signOut(): Promise<void> {
    try {
      await api.delete('/auth/session');
    } finally {
      setCsrf(null);
    }
  },
};

/** A link of `GET /api/urls`. */
export interface LinkItem {
  id: number;
  alias: string;
  shorturl: string;
  longurl: string;
  title: string;
  clicks: number;
  uniqueClicks: number;
  date: string;
  domain: string | null;
}

/** A page of a list route: `{error, data: {result, perpage, currentpage, nextpage, maxpage, [key]}}`. */
export interface ListPage {
  result: number;
  perpage: number;
  currentpage: number;
  nextpage: number;
  maxpage: number;
}

export const links = {
  list: (query: { q?: string; page?: number; limit?: number }) =>
    api.get<{ data: ListPage & { urls: LinkItem[] } }>('/api/urls', query).then((r) => r.data),
  create: (url: string) => api.post<{ id: number; shorturl: string }>('/api/url/add', { url }),
};
