/** localStorage that never throws (storage can be disabled or full). */
export function stored<T extends string>(key: string, fallback: T, allowed?: readonly T[]): T {
  try {
    const v = localStorage.getItem(key) as T | null;
    if (v && (!allowed || allowed.includes(v))) return v;
  } catch {
    // storage disabled
  }
  return fallback;
}

export function store(key: string, value: string): void {
  try {
    localStorage.setItem(key, value);
  } catch {
    // storage disabled
  }
}
