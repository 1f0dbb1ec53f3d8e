import { getHeapStatistics } from 'node:v8';
import { floatFlag, sizeFlag } from '../flags/index.ts';
import { gauge } from '../metrics/index.ts';
import { allowedMemoryBytes, MemoryBudget, systemMemoryBytes } from './budget.ts';

const allowedBytes = sizeFlag('memory.allowedBytes', '0', 'Memory the caches may use, e.g. 512MiB; overrides -memory.allowedPercent when non-zero. Caches of JS objects get at most half of the V8 heap limit (raise it with --max-old-space-size in NODE_OPTIONS)');
const allowedPercent = floatFlag('memory.allowedPercent', 60, 'Percent of system memory (or the container limit) the caches may use; see -memory.allowedBytes. Caches of JS objects get at most half of the V8 heap limit');

let budget: MemoryBudget | undefined;

/** processMemoryBudget returns the process-wide budget built from -memory.* (after flag parsing). */
export function processMemoryBudget(): MemoryBudget {
  if (budget === undefined) {
    if (!(allowedPercent.value > 0 && allowedPercent.value <= 100)) {
      throw new Error(`-memory.allowedPercent must be in (0, 100]; got ${allowedPercent.value}`);
    }
    const allowed = allowedMemoryBytes({ allowedBytes: allowedBytes.value, allowedPercent: allowedPercent.value, systemBytes: systemMemoryBytes() });
    const b = new MemoryBudget(allowed, getHeapStatistics().heap_size_limit);
    gauge('process_memory_allowed_bytes', 'Memory the caches may use (-memory.allowedBytes / -memory.allowedPercent)', [], (g) => g.set(b.allowedBytes));
    gauge('process_memory_allowed_heap_bytes', 'Memory the caches of JS objects may use: the allowed memory, capped at half of the V8 heap limit', [], (g) => g.set(b.heapBytes));
    gauge('process_memory_cache_share_bytes', 'Share of the memory budget given to each cache', ['cache'], (g) => {
      for (const [cache, bytes] of b.shares()) g.set({ cache }, bytes);
    });
    budget = b;
  }
  return budget;
}
