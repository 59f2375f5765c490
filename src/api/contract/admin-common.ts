/**
 * Pieces several administrator contract files share (paging, delete flags, two enums). They
 * live here rather than in one of those files, so that loading one group's contract does not
 * load (and build) another's.
 */
import { z } from './z.js';
import { lazy } from './common.js';

/** Paging of the admin lists: page_number/page_size, items under `items`, totals under `pagination`. */
export const adminPaging = (items: string) => ({
  page: 'page_number',
  size: 'page_size',
  items,
  info: 'pagination',
  defaultSize: 20,
  maxSize: 100,
});

/** Delete requests (point 5): optional flags plus identifiers. */
export const deleteFlags = lazy(() => ({
  force_delete: z.boolean().optional(),
  delete_related_data: z.boolean().optional(),
}));

export const ServiceType = lazy(() => z.enum(['TIME_BASED', 'USAGE_BASED', 'HYBRID']));
export const PaymentMethod = lazy(() => z.enum(['card', 'bank', 'paypal', 'crypto']));
