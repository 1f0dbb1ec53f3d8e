export { allowedMemoryBytes, MemoryBudget, systemMemoryBytes, type BudgetOptions } from './budget.ts';
export { processMemoryBudget } from './flags.ts';
