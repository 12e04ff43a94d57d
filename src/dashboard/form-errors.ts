/**
 * A form's refusals as sentences for the person who filled it, each at its field: the API's
 * schemas still decide (the same body is refused where the API would refuse it), but their
 * developer wording (`name: Too small: expected string to have >=1 characters`, `url: refused:
 * … (WEBHOOK_ALLOW_PRIVATE=true allows it)`) never reaches the page.
 *
 * @example
 * const parsed = parseForm(CreateTagBody, { name: '' }, { name: 'the name' });
 * // { ok: false, errors: { name: 'Enter the name.' } }
 */
import type { z } from 'zod';
import { ApiError } from '../http/errors.js';

/** A message per field (`form`: one that concerns no field, shown at the top of the form). */
export type FormErrors = Record<string, string>;

type Issue = z.core.$ZodIssue;

const capital = (s: string) => `${s[0]!.toUpperCase()}${s.slice(1)}`;

/** One schema problem as a sentence; `label` is how the field is called ("the name"). */
export function plainIssue(issue: Issue, label: string): string {
  const limit = (issue as { maximum?: number | bigint }).maximum ?? (issue as { minimum?: number | bigint }).minimum;
  const origin = (issue as { origin?: string }).origin;
  switch (issue.code) {
    case 'too_small':
      if (origin === 'string' && Number(limit) <= 1) return `Enter ${label}.`;
      if (origin === 'string') return `${capital(label)} is too short: at least ${limit} characters.`;
      if (origin === 'array') return `Choose at least ${limit === 1 ? 'one of' : limit} ${label}.`;
      return `${capital(label)} must be at least ${limit}.`;
    case 'too_big':
      if (origin === 'string') return `${capital(label)} is too long: at most ${limit} characters.`;
      if (origin === 'array') return `Choose at most ${limit} for ${label}.`;
      return `${capital(label)} can be at most ${limit}.`;
    case 'invalid_type':
      return `Enter ${label}.`;
    case 'invalid_value':
      return `Choose one of the offered values for ${label}.`;
    default: {
      // A custom rule of the API's schema.
      const message = issue.message.replace(/\.$/, '');
      if (/^invalid url/i.test(message)) return `Enter a web address starting with https:// (or http://) for ${label}.`;
      if (/^invalid domain/i.test(message)) return `${capital(label)} is not a domain name such as go.example.com.`;
      if (/^(must|should|is|only|can)\b/.test(message)) return `${capital(label)} ${message}.`;
      if (/^[A-Z]/.test(message) && !/^Invalid\b/.test(message)) return `${message}.`;
      return `${capital(label)} is not valid (${message}).`;
    }
  }
}

/**
 * Parses `value` with the API's `schema`; a refusal gives one sentence per field (the first
 * problem of each). `labels` names the fields the form has; a problem elsewhere goes to `form`.
 */
export function parseForm<T extends z.ZodTypeAny>(schema: T, value: unknown, labels: Record<string, string>): { ok: true; data: z.infer<T> } | { ok: false; errors: FormErrors } {
  const result = schema.safeParse(value);
  if (result.success) return { ok: true, data: result.data };
  const errors: FormErrors = {};
  for (const issue of result.error.issues) {
    const top = String(issue.path[0] ?? '');
    const field = top in labels ? top : 'form';
    errors[field] ??= plainIssue(issue, labels[top] ?? 'this form');
  }
  return { ok: false, errors };
}

/** A form refused before it reached a service: its sentences, by field (`formInput`). */
export class FormRefusal extends Error {
  constructor(readonly errors: FormErrors) {
    super(Object.values(errors).join(' '));
  }
}

/** `parseForm`'s data, or throws `FormRefusal` with its sentences (for `orShow` in routes/settings.tsx). */
export function formInput<T extends z.ZodTypeAny>(schema: T, value: unknown, labels: Record<string, string>): z.infer<T> {
  const parsed = parseForm(schema, value, labels);
  if (!parsed.ok) throw new FormRefusal(parsed.errors);
  return parsed.data;
}

/**
 * An outbound address refusal (src/outbound/request.ts, which names the operator's switch for
 * the API's developers) as a sentence for the dashboard.
 */
export function plainAddressRefusal(message: string): string | null {
  if (/^refused:/.test(message) || /private or reserved/.test(message)) {
    return 'This address is on a private or local network (such as localhost, 127.0.0.1 or 192.168.x.x): Waymark only sends to addresses on the public internet. Use your server’s public https:// address.';
  }
  if (message === 'invalid URL' || message === 'only http and https URLs are allowed') return 'Enter a web address starting with https:// (or http://).';
  return null;
}

/**
 * A service refusal (a 4xx ApiError) as form errors: at `err.field` when the form has it, else at
 * `fallback`; the message stripped of its `field: ` prefix. Anything else is rethrown.
 */
export function errorsOfRefusal(err: unknown, labels: Record<string, string>, fallback = 'form'): FormErrors {
  if (!(err instanceof ApiError) || err.status < 400 || err.status >= 500) throw err;
  const prefix = /^([A-Za-z][\w.]*): (.*)$/s.exec(err.message);
  const named = err.field ?? prefix?.[1];
  const top = named?.split('.')[0];
  const field = top && top in labels ? top : fallback;
  const message = prefix && prefix[1] === named ? prefix[2]! : err.message;
  const label = capital(labels[field] ?? 'this field');
  const rule = /^(must|is|only|should|can)\b/.test(message);
  const sentence = plainAddressRefusal(message) ?? (prefix && prefix[1] === named ? (rule ? `${label} ${message}` : `${label}: ${message}`) : message);
  return { [field]: /[.!?]$/.test(sentence) ? sentence : `${sentence}.` };
}

/** `aria-invalid` and `aria-describedby` of a field with a message (FieldError's id is `err-<id>`). */
export function invalidAttrs(errors: FormErrors | undefined, id: string): { 'aria-invalid'?: 'true'; 'aria-describedby'?: string } {
  return errors?.[id] ? { 'aria-invalid': 'true', 'aria-describedby': `err-${id}` } : {};
}
