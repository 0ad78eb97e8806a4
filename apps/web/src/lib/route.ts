/**
 * The URL is the chat: `/c/<chatId>` opens that conversation (from history), `/` starts a new one.
 * A tiny History API router; no library needed for two routes.
 */
import { useCallback, useEffect, useState } from 'react';

const CHAT_PATH = /^\/c\/([^/]+)\/?$/;

/** The chat id in a path, if it is a chat path. */
export function chatIdOf(pathname: string): string | undefined {
  const m = CHAT_PATH.exec(pathname);
  if (!m) return undefined;
  try {
    return decodeURIComponent(m[1]);
  } catch {
    return undefined;
  }
}

export function chatPath(chatId: string): string {
  return `/c/${encodeURIComponent(chatId)}`;
}

/** The current path, updated on back / forward and on `navigate`. */
export function usePath(): [string, (path: string, replace?: boolean) => void] {
  const [path, setPath] = useState(() => location.pathname);
  useEffect(() => {
    const onPop = () => setPath(location.pathname);
    addEventListener('popstate', onPop);
    return () => removeEventListener('popstate', onPop);
  }, []);
  const navigate = useCallback((to: string, replace = false) => {
    if (to === location.pathname) return;
    if (replace) history.replaceState(null, '', to);
    else history.pushState(null, '', to);
    setPath(to);
  }, []);
  return [path, navigate];
}
