export { allowedMemoryBytes, HEAP_CACHE_FRACTION, MemoryBudget, systemMemoryBytes, type BudgetOptions } from './budget.ts';
export { processMemoryBudget } from './flags.ts';
