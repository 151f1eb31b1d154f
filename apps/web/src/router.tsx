import { MouseEvent, ReactNode, useEffect, useState } from 'react';

/**
 * A tiny client-side router over the History API: paths below /app (the api answers every
 * /app/* path with index.html). Enough for a handful of pages; no library to ship.
 */
export const BASE = '/app';

/** The path inside the app: `/app/links?q=x` → `/links`. */
function current(): string {
  const path = window.location.pathname;
  const inner = path.startsWith(BASE) ? path.slice(BASE.length) : path;
  return inner === '' ? '/' : inner;
}

const listeners = new Set<() => void>();

export function navigate(to: string, opts: { replace?: boolean } = {}): void {
  const url = `${BASE}${to}`;
  if (opts.replace) window.history.replaceState(null, '', url);
  else window.history.pushState(null, '', url);
  for (const l of listeners) l();
}

export function usePath(): string {
  const [path, setPath] = useState(current);
  useEffect(() => {
    const update = () => setPath(current());
    listeners.add(update);
    window.addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return path;
}

/** A real link (`href` works with a new tab, a keyboard and a screen reader), routed in place. */
export function Link(props: {
  to: string;
  children: ReactNode;
  current?: boolean;
  className?: string;
}) {
  const onClick = (e: MouseEvent<HTMLAnchorElement>) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(props.to);
  };
  return (
    <a
      href={`${BASE}${props.to}`}
      onClick={onClick}
      aria-current={props.current ? 'page' : undefined}
      className={props.className}
    >
      {props.children}
    </a>
  );
}
