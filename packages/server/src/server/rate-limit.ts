/**
 * The per-caller rate limit: a token bucket per token name (per client address when authentication
 * is off) holding up to `burst` requests, refilled at `perMinute`. In memory for one instance; in
 * Redis (`fanout.take`) when the fan-out is configured, so a fleet shares one bucket per caller.
 */

/** A limiter: `take(key)` spends one request of `key`'s bucket. */
export interface RateLimiter {
  take(key: string): Promise<{ ok: boolean; retryAfterMs: number }>;
}

/** Options of the in-memory limiter. */
export interface MemoryLimiterOptions {
  perMinute: number;
  /** Bucket size (default: `perMinute`, i.e. a minute's worth at once). */
  burst?: number;
  /** Clock (default `Date.now`). */
  now?: () => number;
  /** Buckets kept before idle full ones are dropped (default 10 000). */
  maxKeys?: number;
}

/** The in-memory token bucket. */
export function memoryLimiter(options: MemoryLimiterOptions): RateLimiter {
  const now = options.now ?? Date.now;
  const burst = options.burst ?? options.perMinute;
  const rate = options.perMinute / 60_000; // tokens per ms
  const maxKeys = options.maxKeys ?? 10_000;
  const buckets = new Map<string, { tokens: number; ts: number }>();

  const prune = (t: number) => {
    for (const [key, b] of buckets) if (b.tokens + (t - b.ts) * rate >= burst) buckets.delete(key);
  };

  return {
    async take(key) {
      const t = now();
      let b = buckets.get(key);
      if (!b) {
        if (buckets.size >= maxKeys) prune(t);
        b = { tokens: burst, ts: t };
        buckets.set(key, b);
      }
      b.tokens = Math.min(burst, b.tokens + Math.max(0, t - b.ts) * rate);
      b.ts = t;
      if (b.tokens >= 1) {
        b.tokens -= 1;
        return { ok: true, retryAfterMs: 0 };
      }
      return { ok: false, retryAfterMs: Math.ceil((1 - b.tokens) / rate) };
    },
  };
}

/** A limiter over Redis (the fan-out's `take`), falling back to memory when Redis fails. */
export function redisLimiter(
  fanout: { take(key: string, perMinute: number, burst: number): Promise<{ ok: boolean; retryAfterMs: number }> },
  options: MemoryLimiterOptions,
): RateLimiter {
  const local = memoryLimiter(options);
  const burst = options.burst ?? options.perMinute;
  return {
    async take(key) {
      try {
        return await fanout.take(key, options.perMinute, burst);
      } catch {
        return local.take(key);
      }
    },
  };
}
