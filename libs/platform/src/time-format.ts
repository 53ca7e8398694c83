/** The platform API's timestamps: `YYYY-MM-DDTHH:MM:SSZ` (v4, and v3 when polled). */
export const isoSeconds = (date: Date): string => `${date.toISOString().slice(0, 19)}Z`;

/** The v3 callback's timestamps: `YYYY-MM-DD HH:MM:SS UTC`. */
export const utcSeconds = (date: Date): string => `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;

export const isoSecondsOrNull = (date: Date | null): string | null => (date ? isoSeconds(date) : null);
