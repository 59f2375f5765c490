// Placeholder: filled in by the contract work.
import type { AnyEndpoint } from './common.js';
export const accountEndpoints: AnyEndpoint[] = [];
