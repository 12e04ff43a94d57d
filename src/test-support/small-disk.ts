/**
 * A small disk for tests of a full volume: a `tmpfs` of a few megabytes mounted on a temporary
 * folder (needs root, as CI runs), a filler file that takes every free byte, and the figures of
 * the volume. For test/full-disk/ and events/duckdb/disk-room.test.ts.
 *
 * @example
 * const disk = mountSmallDisk(32);            // undefined when not root or mount fails
 * const filler = disk.fill();                 // the volume is full now
 * filler.free();                              // and has room again
 * disk.unmount();                             // always, in a finally
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readdirSync, rmSync, statSync, statfsSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SmallDisk {
  /** The mount point. */
  dir: string;
  /** Bytes free for an ordinary user of the volume now. */
  freeBytes(): number;
  /** Sizes of the files at the top of the volume (name → bytes), for the report of a test. */
  sizes(): Record<string, number>;
  /** Writes a filler file until the volume refuses (ENOSPC); `free()` deletes it. */
  fill(): { bytes: number; free(): void };
  unmount(): void;
}

/** Why a small disk cannot be mounted here (a reason to skip), or undefined when it can. */
export function smallDiskUnavailable(): string | undefined {
  if (process.platform !== 'linux') return 'tmpfs needs Linux';
  if (process.getuid?.() !== 0) return 'mounting a tmpfs needs root';
  return undefined;
}

/** Mounted and not unmounted yet: unmounted if the test process is stopped (a runner's timeout sends SIGTERM). */
const mounted = new Set<string>();
let stopHandler = false;
function unmountOnStop(): void {
  if (stopHandler) return;
  stopHandler = true;
  process.once('SIGTERM', () => {
    for (const dir of mounted) {
      try {
        execFileSync('umount', ['-l', dir]);
      } catch {
        /* best effort on the way out */
      }
    }
    process.exit(143);
  });
}

/** Mounts a tmpfs of `megabytes` on a new temporary folder. */
export function mountSmallDisk(megabytes: number): SmallDisk {
  const dir = mkdtempSync(join(tmpdir(), 'waymark-small-disk-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${megabytes}m,mode=0700`, 'tmpfs', dir]);
  mounted.add(dir);
  unmountOnStop();
  let fillers = 0;
  return {
    dir,
    freeBytes() {
      const s = statfsSync(dir);
      return s.bavail * s.bsize;
    },
    sizes() {
      const out: Record<string, number> = {};
      for (const name of readdirSync(dir)) {
        try {
          out[name] = statSync(join(dir, name)).size;
        } catch {
          /* gone meanwhile */
        }
      }
      return out;
    },
    fill() {
      const file = join(dir, `filler-${++fillers}`);
      const fd = openSync(file, 'w');
      let bytes = 0;
      // Large writes first, then small ones for the last pages.
      for (const size of [1 << 20, 4096]) {
        const chunk = Buffer.alloc(size, 1);
        try {
          for (;;) bytes += writeSync(fd, chunk);
        } catch (err) {
          if ((err as { code?: string }).code !== 'ENOSPC') throw err;
        }
      }
      closeSync(fd);
      return { bytes, free: () => rmSync(file, { force: true }) };
    },
    unmount() {
      try {
        execFileSync('umount', ['-l', dir]);
        mounted.delete(dir);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
