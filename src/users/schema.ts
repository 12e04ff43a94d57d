/**
 * Validation of what people type into the dashboard's account forms and the CLI.
 *
 * @example
 * const input = parseInput(NewUser, { email: 'Ann@Example.com', name: 'Ann', password: '…' });
 */
import { z } from 'zod';
import { ApiError } from '../http/errors.js';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from './password.js';
import { ROLES } from './roles.js';

export const Email = z.string().trim().min(3).max(254).email('must be an email address');
export const Password = z
  .string()
  .min(MIN_PASSWORD_LENGTH, `must be at least ${MIN_PASSWORD_LENGTH} characters`)
  .max(MAX_PASSWORD_LENGTH, `must be at most ${MAX_PASSWORD_LENGTH} characters`);
export const Name = z.string().trim().min(1, 'is required').max(100);
export const RoleInput = z.enum(ROLES);

export const NewUser = z.object({ email: Email, name: Name, password: Password });
export type NewUser = z.infer<typeof NewUser>;

/** The form of an email address that logins and uniqueness compare. */
export function emailKey(email: string): string {
  return email.trim().toLowerCase();
}

/** Parses or throws 422 naming the first field at fault: `password: must be at least 10 characters`. */
export function parseInput<T extends z.ZodTypeAny>(schema: T, value: unknown): z.infer<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  throw new ApiError('unprocessable_entity', `${issue.path.join('.') || 'input'}: ${issue.message}`, { field: issue.path.join('.') || undefined });
}
