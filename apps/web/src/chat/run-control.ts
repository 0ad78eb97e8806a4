/**
 * Stop, done explicitly. The chat's requests ask the gateway to keep a run going when the page
 * leaves (`x-switchboard-on-disconnect: continue`): switching chats, New chat or Back never kill an
 * answer, and reopening the chat resumes it. Stop is therefore a request of its own,
 * `POST /api/runs/:runId/abort`; the stream then ends by itself with the run's abort. A server
 * without that route gets the old behaviour: the stream is closed (`fallback`).
 */
import { useCallback, useRef, useState } from 'react';

import { abortRun } from '../lib/api.ts';

export interface RunControl {
  /** Give to the transport's tap: the run id of the response that just arrived (undefined: the server names none). */
  onRun: (runId: string | undefined) => void;
  /** The Stop button; `answered`: the response has begun (a server that names no run gets `fallback` then). */
  stop: (answered: boolean) => void;
  /** Stop was asked and the run has not ended yet. */
  stopping: boolean;
  /** Call when a run has ended (whatever the reason). */
  ended: () => void;
}

export function useRunControl(fallback: () => void): RunControl {
  const runId = useRef<string | undefined>(undefined);
  const wanted = useRef(false);
  const [stopping, setStopping] = useState(false);
  const fallbackRef = useRef(fallback);
  fallbackRef.current = fallback;

  const abort = useCallback(async (id: string) => {
    if (!(await abortRun(id))) fallbackRef.current();
  }, []);

  const onRun = useCallback(
    (id: string | undefined) => {
      runId.current = id;
      if (!wanted.current) return;
      wanted.current = false;
      if (id) void abort(id);
      else fallbackRef.current();
    },
    [abort],
  );

  const stop = useCallback(
    (answered: boolean) => {
      setStopping(true);
      if (runId.current) void abort(runId.current);
      else if (answered) fallbackRef.current();
      // Not answered yet: abort the run as soon as the response names it.
      else wanted.current = true;
    },
    [abort],
  );

  const ended = useCallback(() => {
    runId.current = undefined;
    wanted.current = false;
    setStopping(false);
  }, []);

  return { onRun, stop, stopping, ended };
}
