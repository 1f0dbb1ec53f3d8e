import { describe, expect, it } from 'vitest';
import { ProgressTracker, type Progress } from './progress.ts';

describe('ProgressTracker', () => {
  it('reports bytes, rate and ETA at most once per interval, and at finish', () => {
    let t = 0;
    const reports: Progress[] = [];
    const p = new ProgressTracker({ bytesTotal: 1000, partsTotal: 4, now: () => t, onProgress: (r) => reports.push(r), intervalMs: 1000 });
    t = 500;
    p.addBytes(100); // first report
    t = 900;
    p.addBytes(100); // within the interval: suppressed
    t = 2000;
    p.addBytes(200);
    p.partDone(); // suppressed
    p.finish();
    expect(reports).toEqual([
      { bytesDone: 100, bytesTotal: 1000, partsDone: 0, partsTotal: 4, bytesPerSecond: 200, etaSeconds: 4.5 },
      { bytesDone: 400, bytesTotal: 1000, partsDone: 0, partsTotal: 4, bytesPerSecond: 200, etaSeconds: 3 },
      { bytesDone: 400, bytesTotal: 1000, partsDone: 1, partsTotal: 4, bytesPerSecond: 200, etaSeconds: 3 },
    ]);
  });

  it('has no ETA before bytes move and 0 when done', () => {
    let t = 0;
    const p = new ProgressTracker({ bytesTotal: 10, partsTotal: 1, now: () => t });
    expect(p.snapshot().etaSeconds).toBeUndefined();
    t = 1000;
    p.addBytes(10);
    expect(p.snapshot()).toMatchObject({ etaSeconds: 0, bytesPerSecond: 10 });
  });
});
