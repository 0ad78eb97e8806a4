/** What the app gives a chat pane (both protocols take the same). */
import type { ReactNode, Ref } from 'react';

import type { ChatMessage } from '../lib/types.ts';
import type { ComposerHandle } from './Composer.tsx';

export interface ChatProps {
  chatId: string;
  initialMessages: ChatMessage[];
  /** The chat's run still streaming on the server, when it was reopened mid-answer: resume it. */
  resumeRunId?: string;
  agent: string;
  /** The reader sent a message (the URL takes the chat id). */
  onSend: () => void;
  /** The server answered a request: the run exists (the chat list can show the chat). */
  onRunStart: () => void;
  onRunEnd: () => void;
  onInspect: (messageId: string) => void;
  empty: ReactNode;
  composerRef?: Ref<ComposerHandle>;
}
