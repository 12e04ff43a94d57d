/**
 * What an audit entry is made of, as services describe it: who acted (`Who`, `Actor`) and what
 * changed (`Change`). Types only: `record.ts` writes entries, `entries.ts` shapes their rows.
 */

export type ActorType = 'user' | 'api_key' | 'cli';

export interface Actor {
  type: ActorType;
  /** The user's or API key's id; absent for the CLI. */
  id?: string;
}

/** Who makes a change, and from which address. */
export interface Who {
  /** Null before sign-in (a person accepting an invitation: the change names them itself). */
  actor: Actor | null;
  ip: string | null;
}

/** One change, as a service describes it. */
export interface Change {
  workspaceId: string;
  /** `<target type>.<verb>`: `link.create`, `member.remove`, `links.bulk_update`. */
  action: string;
  targetIds: string | readonly string[];
  /** What changed: field names, counts, new roles. Never secrets (passwords, key values, tokens). */
  changes?: Record<string, unknown>;
  /** The actor when the request has none yet (a person signing up by invitation). */
  actor?: Actor;
}
