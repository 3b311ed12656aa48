/** Whether a process still exists, by the `kill(pid, 0)` probe. */

/**
 * True when no process `pid` exists on this host (`kill(pid, 0)` fails with ESRCH). A process we
 * may not signal (EPERM) exists: its lock or temp file is not stale.
 */
export function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
