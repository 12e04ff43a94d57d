/**
 * A bio page's model and the pure checks of its input: handle pattern and length, title and bio
 * lengths, http/https URLs only (the avatar https only, as the page loads it), known themes and
 * networks. Each refusal names its form field in plain words.
 *
 * @example
 * const r = validateBioInput({ handle: 'ada', title: 'Ada', theme: 'dark', links: ['link_1'] });
 * if (r.ok) r.value.handle; else r.errors.handle;
 */
import { checkWebUrl } from '../web-url.js';
import type { BioPagesTable } from '../db/tables.js';

export const HANDLE_PATTERN = /^[A-Za-z0-9](?:[A-Za-z0-9_.-]{0,28}[A-Za-z0-9])?$/;
export const MAX_HANDLE = 30;
export const MAX_TITLE = 80;
export const MAX_BIO = 280;
export const MAX_URL = 2000;
export const MAX_BIO_LINKS = 50;

export const THEMES = ['light', 'dark', 'ocean', 'sunset'] as const;
export type BioTheme = (typeof THEMES)[number];
export const THEME_LABELS: Record<BioTheme, string> = { light: 'Light', dark: 'Dark', ocean: 'Ocean', sunset: 'Sunset' };

export const NETWORKS = ['x', 'instagram', 'youtube', 'tiktok', 'linkedin', 'github'] as const;
export type Network = (typeof NETWORKS)[number];
export const NETWORK_LABELS: Record<Network, string> = { x: 'X', instagram: 'Instagram', youtube: 'YouTube', tiktok: 'TikTok', linkedin: 'LinkedIn', github: 'GitHub' };

export type BioPageRow = BioPagesTable;

/** A bio page as pages and the service use it. */
export interface BioPage {
  id: string;
  workspaceId: string;
  domain: string;
  handle: string;
  atRoot: boolean;
  title: string;
  bio: string | null;
  avatar: string | null;
  theme: BioTheme;
  socials: Partial<Record<Network, string>>;
  views: number;
  linkIds: string[];
}

/** What the editor sends, validated. */
export interface BioInput {
  domain: string;
  handle: string;
  atRoot: boolean;
  title: string;
  bio: string | null;
  avatar: string | null;
  theme: BioTheme;
  socials: Partial<Record<Network, string>>;
  linkIds: string[];
}

export type BioField = 'domain' | 'handle' | 'title' | 'bio' | 'avatar' | 'theme' | 'links' | `social_${Network}`;
export type BioValidation = { ok: true; value: BioInput } | { ok: false; errors: Partial<Record<BioField, string>> };

const text = (v: unknown): string => (typeof v === 'string' ? v.trim() : '');

function webUrl(raw: string, httpsOnly: boolean): string | null {
  if (raw.length > MAX_URL) return null;
  const url = checkWebUrl(raw).url;
  if (url === null) return null;
  return httpsOnly && !url.startsWith('https:') ? null : url;
}

/** Checks the form's values; `links` is an ordered list of link ids (their owner is the service's check). */
export function validateBioInput(body: Record<string, unknown>): BioValidation {
  const errors: Partial<Record<BioField, string>> = {};
  const domain = text(body.domain).toLowerCase();
  if (!domain) errors.domain = 'Choose a domain.';
  const handle = text(body.handle);
  if (!handle) errors.handle = 'Enter a handle.';
  else if (handle.length > MAX_HANDLE || !HANDLE_PATTERN.test(handle))
    errors.handle = `A handle has 1 to ${MAX_HANDLE} letters, digits, dots, dashes or underscores, and starts and ends with a letter or digit.`;
  const title = text(body.title);
  if (!title) errors.title = 'Enter a title.';
  else if (title.length > MAX_TITLE) errors.title = `The title can be at most ${MAX_TITLE} characters.`;
  const bio = text(body.bio);
  if (bio.length > MAX_BIO) errors.bio = `The bio can be at most ${MAX_BIO} characters.`;
  const avatarRaw = text(body.avatar);
  const avatar = avatarRaw ? webUrl(avatarRaw, true) : null;
  if (avatarRaw && avatar === null) errors.avatar = 'The avatar must be an https:// address of an image.';
  const theme = text(body.theme) || 'light';
  if (!(THEMES as readonly string[]).includes(theme)) errors.theme = 'Choose one of the themes listed.';
  const socials: Partial<Record<Network, string>> = {};
  for (const n of NETWORKS) {
    const raw = text(body[`social_${n}`]);
    if (!raw) continue;
    const url = webUrl(raw, false);
    if (url === null) errors[`social_${n}`] = `The ${NETWORK_LABELS[n]} address must start with http:// or https://.`;
    else socials[n] = url;
  }
  const rawLinks = body.links;
  const linkIds = [...new Set((Array.isArray(rawLinks) ? rawLinks : typeof rawLinks === 'string' ? rawLinks.split(/[\s,]+/) : []).map(text).filter(Boolean))];
  if (linkIds.length > MAX_BIO_LINKS) errors.links = `A page lists at most ${MAX_BIO_LINKS} links.`;
  if (Object.keys(errors).length) return { ok: false, errors };
  const atRoot = body.atRoot === true || body.atRoot === 'on' || body.atRoot === '1';
  return { ok: true, value: { domain, handle, atRoot, title, bio: bio || null, avatar, theme: theme as BioTheme, socials, linkIds } };
}

export function toBioPage(row: BioPageRow, linkIds: string[]): BioPage {
  let socials: Partial<Record<Network, string>> = {};
  try {
    const parsed = JSON.parse(row.socials) as Record<string, unknown>;
    for (const n of NETWORKS) if (typeof parsed[n] === 'string') socials[n] = parsed[n] as string;
  } catch {
    socials = {};
  }
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    domain: row.domain,
    handle: row.handle,
    atRoot: row.root_domain !== null,
    title: row.title,
    bio: row.bio,
    avatar: row.avatar,
    theme: (THEMES as readonly string[]).includes(row.theme) ? (row.theme as BioTheme) : 'light',
    socials,
    views: Number(row.views),
    linkIds,
  };
}
