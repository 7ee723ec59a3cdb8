/** What the signed-in member's role lets the page offer; the API refuses regardless of what a page shows. */
import { roleAtLeast } from '../domain/roles';
import type { Project } from './api-shapes';

/** Whether change controls (write role and up) are shown. */
export const canWrite = (project: Project): boolean => roleAtLeast(project.role ?? 'read', 'write');

/** Whether admin-only controls (principals, service credentials, API keys) are shown. */
export const canAdmin = (project: Project): boolean => roleAtLeast(project.role ?? 'read', 'admin');
