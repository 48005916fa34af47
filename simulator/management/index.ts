/**
 * The simulated backup management service (/api/v2): its estate (truth and
 * mutators for tests), its express app, and its error body for injected faults.
 */
export { createManagementEstate } from './generate';
export { createManagementApp } from './app';
export { managementErrorBody } from './errors';
export { ManagementEstate } from './model';
export type * from './shapes';
