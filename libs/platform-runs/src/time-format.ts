let lastTime = NaN;
let lastIso = '';

/**
 * The platform API's timestamps: `YYYY-MM-DDTHH:MM:SSZ` (v4, and v3 when polled). The last one is kept:
 * the units of a run share their created_at, and formatting 10,000 equal dates showed in read profiles.
 */
export const isoSeconds = (date: Date): string => {
  const time = date.getTime();
  if (time !== lastTime) {
    lastIso = `${date.toISOString().slice(0, 19)}Z`;
    lastTime = time;
  }
  return lastIso;
};

/** The v3 callback's timestamps: `YYYY-MM-DD HH:MM:SS UTC`. */
export const utcSeconds = (date: Date): string => `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;

export const isoSecondsOrNull = (date: Date | null): string | null => (date ? isoSeconds(date) : null);
