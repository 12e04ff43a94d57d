/**
 * The process's own JSON log lines, where no Fastify logger is at hand (the front on the main
 * thread, the redirect, the webhook dispatcher): the form of pino's (the level as its number,
 * `time` in ms, `msg`, then the fields), filtered by `LOG_LEVEL` as pino filters. Each caller keeps
 * its stream: stdout carries the JSON log, stderr what is not part of it.
 *
 * @example
 * const log = createLineLogger(config.logLevel, (line) => process.stderr.write(line));
 * log('warn', 'the click spill folder is on the same volume', { spillDir });
 */
export const LOG_LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 } as const;
export type LogLevel = keyof typeof LOG_LEVELS;

/** Whether a line at `level` is written under `LOG_LEVEL` = `threshold` (default info; `silent` writes none). */
export function logs(threshold: string | undefined, level: LogLevel): boolean {
  if (threshold === 'silent') return false;
  const floor = LOG_LEVELS[(threshold ?? 'info') as LogLevel] ?? LOG_LEVELS.info;
  return LOG_LEVELS[level] >= floor;
}

/** One line, newline included. */
export function formatLogLine(level: LogLevel, msg: string, fields: Record<string, unknown> = {}, now = Date.now()): string {
  return `${JSON.stringify({ level: LOG_LEVELS[level], time: now, msg, ...fields })}\n`;
}

export type LineLogger = (level: LogLevel, msg: string, fields?: Record<string, unknown>) => void;

/** A logger writing the lines `threshold` lets through to `write`; `base` fields go on every line. */
export function createLineLogger(threshold: string | undefined, write: (line: string) => void, base: Record<string, unknown> = {}): LineLogger {
  return (level, msg, fields = {}) => {
    if (logs(threshold, level)) write(formatLogLine(level, msg, { ...base, ...fields }));
  };
}

/** Writes to stderr (what `console.error` did at these call sites). */
export const toStderr = (line: string): void => void process.stderr.write(line);
