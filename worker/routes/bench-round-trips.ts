/**
 * The bench's read-out of the D1 round-trip counter (`GET /api/__bench/d1-round-trips`, `?reset=1`
 * to zero it after reading): bench/round-trips.ts drives a hot path against `wrangler dev`, then
 * asks how many round trips the Worker and the session objects made (one isolate, one counter).
 * It exists only while `D1_COUNT_ROUND_TRIPS` is "true": otherwise it answers 404 like any unknown
 * API address, so production never exposes it. Mounted before the D1 session and every auth
 * middleware, so reading the counter never adds to it.
 */
import { Hono } from 'hono';
import type { AppEnv } from '../app-env.ts';
import { ApiError } from '../../shared/api-error.ts';
import { d1RoundTripLog, d1RoundTrips, resetD1RoundTrips } from '../db/instrumented-d1.ts';

export const BENCH_ROUND_TRIPS_PATH = '/__bench/d1-round-trips';

export const benchRoundTripRoutes = new Hono<AppEnv>().get('/d1-round-trips', (c) => {
  if (c.env.D1_COUNT_ROUND_TRIPS !== 'true') throw new ApiError('NOT_FOUND', { message: 'There is no API endpoint at this address.' });
  const body = { roundTrips: d1RoundTrips(), log: [...d1RoundTripLog()] };
  if (c.req.query('reset') === '1') resetD1RoundTrips();
  return c.json({ data: body, error: null });
});
