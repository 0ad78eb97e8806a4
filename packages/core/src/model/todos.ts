/**
 * Todo lists: reading agents' todo items (strings or objects, in their own status words) into
 * canonical {@link Todo}s.
 */
import type { Todo } from './events.ts';
import type { TodoStatus } from './vocabulary.ts';

/** Status words agents use, mapped to the canonical {@link TodoStatus}. */
const STATUS_WORDS: Readonly<Record<string, TodoStatus>> = {
  pending: 'pending',
  todo: 'pending',
  in_progress: 'in_progress',
  'in-progress': 'in_progress',
  active: 'in_progress',
  completed: 'completed',
  done: 'completed',
  cancelled: 'cancelled',
  canceled: 'cancelled',
};

/** The canonical status for an agent's status word, or undefined when it is not one. */
export function todoStatus(word: unknown): TodoStatus | undefined {
  return typeof word === 'string' && Object.hasOwn(STATUS_WORDS, word) ? STATUS_WORDS[word] : undefined;
}

function text(o: Record<string, unknown>, ...keys: string[]): string | undefined {
  for (const k of keys) if (typeof o[k] === 'string') return o[k] as string;
  return undefined;
}

/**
 * Turns agent todo items (strings or objects) into canonical todos; what an item lacks is taken
 * from the item at the same index of `previous` (an update), else defaulted.
 */
export function toTodos(items: unknown[], previous: Todo[] = []): Todo[] {
  return items.map((item, i) => {
    if (typeof item === 'string') return { id: previous[i]?.id ?? `todo-${i + 1}`, content: item, status: 'pending' };
    const o = typeof item === 'object' && item !== null && !Array.isArray(item) ? (item as Record<string, unknown>) : {};
    const todo: Todo = {
      id: text(o, 'id') ?? previous[i]?.id ?? `todo-${i + 1}`,
      content: text(o, 'content', 'title', 'text', 'task') ?? previous[i]?.content ?? '',
      status: todoStatus(o.status) ?? previous[i]?.status ?? 'pending',
    };
    const active = text(o, 'activeForm', 'active_form');
    if (active !== undefined) todo.activeForm = active;
    return todo;
  });
}
