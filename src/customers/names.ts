/**
 * Readable placeholder names for customers tracked without a name ("Big Red Caribou"), so lists
 * and event views show something a person can tell apart instead of an empty cell.
 */
import { randomInt } from 'node:crypto';

const SIZES = ['Big', 'Small', 'Tall', 'Tiny', 'Quick', 'Calm', 'Bold', 'Brave', 'Lucky', 'Happy', 'Gentle', 'Clever', 'Swift', 'Quiet', 'Bright', 'Wild'];
const COLORS = ['Red', 'Blue', 'Green', 'Amber', 'Silver', 'Golden', 'Violet', 'Teal', 'Coral', 'Ivory', 'Indigo', 'Olive', 'Crimson', 'Azure', 'Copper', 'Jade'];
const ANIMALS = [
  'Caribou', 'Otter', 'Falcon', 'Badger', 'Heron', 'Lynx', 'Marten', 'Puffin', 'Walrus', 'Gecko', 'Bison', 'Crane',
  'Dolphin', 'Ferret', 'Ibis', 'Jackal', 'Koala', 'Lemur', 'Moose', 'Newt', 'Ocelot', 'Panda', 'Quail', 'Raven',
  'Salmon', 'Tapir', 'Urchin', 'Vole', 'Wombat', 'Yak', 'Zebra', 'Beaver',
];

const pick = (list: readonly string[], random: (n: number) => number) => list[random(list.length)]!;

/**
 * A random "Size Color Animal" name. `random(n)` returns an integer in [0, n); tests pass a fixed one.
 *
 * @example
 * randomCustomerName(); // "Quick Teal Puffin"
 */
export function randomCustomerName(random: (n: number) => number = (n) => randomInt(n)): string {
  return `${pick(SIZES, random)} ${pick(COLORS, random)} ${pick(ANIMALS, random)}`;
}

/** The name shown for a customer: the given name, else the email, else a random readable name. */
export function customerDisplayName(name: string | null | undefined, email: string | null | undefined): string {
  const trimmed = name?.trim();
  if (trimmed) return trimmed;
  const mail = email?.trim();
  if (mail) return mail;
  return randomCustomerName();
}
