// Plan: desired state + current state -> ordered, explainable operations (pure functions).
export type { Operation, OperationKind, Phase, Plan, PlanResult, PlanWarning } from './types.js';
export { plan, planDestroy } from './plan.js';
export { formatPlan } from './format.js';
