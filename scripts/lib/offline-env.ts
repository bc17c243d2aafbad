/** Environment for wrangler on a machine without internet: no telemetry, no update checks. */
export function offlineEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    WRANGLER_SEND_METRICS: 'false',
    WRANGLER_SEND_ERROR_REPORTS: 'false',
    // The banner is what triggers wrangler's npm update check.
    WRANGLER_HIDE_BANNER: 'true',
    NO_UPDATE_NOTIFIER: '1',
    // Miniflare otherwise fetches a sample `request.cf` object from workers.cloudflare.com.
    CLOUDFLARE_CF_FETCH_ENABLED: 'false',
    ...extra,
  };
}
